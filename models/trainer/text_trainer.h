#pragma once
// One training trial of the byte-level causal LM (transformer_spec.h) on a TextCorpus: the
// text workload's counterpart of trainer.h. Contract: deterministic for (corpus, config) — the
// initialisation, the batches (random windows of the training bytes, drawn by SplitMix64 from
// the seed and the step) and the reference path's arithmetic depend only on config.seed. The
// target is the validation cross-entropy in bits per character over the first eval_tokens
// tokens of the validation bytes, cut into windows of model.context tokens (each predicting
// its next bytes with the window's own left context). Buffers are allocated at construction.
#include <cstdint>
#include <vector>

#include "core/workload_spec.h"
#include "models/trainer/network.h"
#include "models/trainer/optimizer.h"
#include "models/trainer/text_corpus.h"
#include "models/trainer/trainer.h"

namespace kp {

struct TextTrialConfig {
  TransformerSpec model;
  int64_t batch = 32;  // sequences of model.context tokens
  OptimizerSpec optimizer;
  int64_t max_steps = 2000;
  int64_t eval_every = 250;
  double target_bits_per_char = 2.5;
  int64_t eval_tokens = 1 << 16;
  uint64_t seed = 1;
};

// The text workload: GCIDE, the model of transformer_spec.h's defaults (d_model 128, 2 blocks,
// 4 heads, context 64, ~0.47 M parameters), AdamW lr 2e-3 (100 warm-up steps, wd 0.01), batch
// 32, target 2.5 bits/char.
TextTrialConfig gcide_char_lm();

class TextTrainer {
 public:
  // Throws std::invalid_argument where the corpus is shorter than one window or the config is
  // out of range (batch < 1, eval_tokens < context).
  TextTrainer(const TextCorpus& corpus, const TextTrialConfig& config);
  double step();  // one update; returns the batch's mean cross-entropy in nats per token
  double validation_bits_per_char();
  int64_t steps_done() const { return m_step; }
  Network<float>& network() { return m_net; }

 private:
  const TextCorpus& m_corpus;
  TextTrialConfig m_cfg;
  Network<float> m_net;
  Optimizer m_opt;
  std::vector<int32_t> m_labels;
  int64_t m_step = 0;
};

// Trains until the validation bits/char reach the target (ValidationPoint::validation_error
// holds bits/char), divergence or max_steps.
TrialResult train_text_trial(const TextCorpus& corpus, const TextTrialConfig& config);

}  // namespace kp
