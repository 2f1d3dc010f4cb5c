#include "models/trainer/text_trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

#include "models/trainer/splitmix.h"

namespace kp {

TextTrialConfig gcide_char_lm() {
  TextTrialConfig c;
  c.optimizer.kind = OptimizerKind::AdamW;
  c.optimizer.learning_rate = 2e-3;
  c.optimizer.weight_decay = 0.01;
  c.optimizer.warmup_steps = 100;
  return c;
}

namespace {

const TextTrialConfig& checked(const TextCorpus& corpus, const TextTrialConfig& c) {
  const int64_t t = c.model.context;
  if (c.batch < 1) throw std::invalid_argument("text trial: batch must be >= 1");
  if (c.eval_tokens < t) throw std::invalid_argument("text trial: eval_tokens below one window");
  if (static_cast<int64_t>(corpus.train.size()) < t + 1 ||
      static_cast<int64_t>(corpus.validation.size()) < t + 1)
    throw std::invalid_argument("text trial: the corpus is shorter than one window of " +
                                std::to_string(t + 1) + " bytes");
  return c;
}

// Evaluation windows per forward: the network's buffers hold max(batch, this) sequences.
constexpr int64_t kEvalSequences = 32;

}  // namespace

TextTrainer::TextTrainer(const TextCorpus& corpus, const TextTrialConfig& config)
    : m_corpus(corpus),
      m_cfg(checked(corpus, config)),
      m_net(config.model, std::max(config.batch, kEvalSequences), config.seed),
      m_opt(config.optimizer, m_net.num_params(), nullptr, false, true),
      m_labels(static_cast<size_t>(m_net.max_batch())) {}

double TextTrainer::step() {
  const int64_t t = m_cfg.model.context;
  const uint64_t span = m_corpus.train.size() - static_cast<size_t>(t);  // window starts
  float* x = m_net.input();
  uint64_t state = splitmix64(m_cfg.seed * 0x100000001b3ull + static_cast<uint64_t>(m_step));
  for (int64_t s = 0; s < m_cfg.batch; ++s) {
    const uint8_t* w = m_corpus.train.data() + splitmix64_next(state) % span;
    for (int64_t i = 0; i < t; ++i) {
      x[s * t + i] = float(w[i]);
      m_labels[size_t(s * t + i)] = w[i + 1];
    }
  }
  const double loss = m_net.forward_backward(m_labels.data(), m_cfg.batch * t);
  m_opt.step(m_net.params(), m_net.grads(), m_step);
  ++m_step;
  return loss;
}

double TextTrainer::validation_bits_per_char() {
  const int64_t t = m_cfg.model.context;
  const int64_t fit = (static_cast<int64_t>(m_corpus.validation.size()) - 1) / t;
  const int64_t windows = std::min(m_cfg.eval_tokens / t, fit);
  double nats = 0;
  int64_t errors = 0;
  for (int64_t w0 = 0; w0 < windows; w0 += kEvalSequences) {
    const int64_t nw = std::min(kEvalSequences, windows - w0);
    float* x = m_net.input();
    for (int64_t i = 0; i < nw * t; ++i) {
      const uint8_t* p = m_corpus.validation.data() + w0 * t + i;
      x[i] = float(p[0]);
      m_labels[size_t(i)] = p[1];
    }
    nats += m_net.evaluate(m_labels.data(), nw * t, &errors);
  }
  return nats / double(windows * t) / std::log(2.0);
}

TrialResult train_text_trial(const TextCorpus& corpus, const TextTrialConfig& config) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  TextTrainer trainer(corpus, config);
  TrialResult r;
  double update_s = 0, loss_sum = 0;
  int64_t loss_count = 0;
  const int64_t eval_every = std::max<int64_t>(config.eval_every, 1);
  while (r.steps < config.max_steps) {
    const auto s0 = Clock::now();
    const double loss = trainer.step();
    update_s += std::chrono::duration<double>(Clock::now() - s0).count();
    ++r.steps;
    if (!std::isfinite(loss) || loss > 1e3) {
      r.diverged = true;
      break;
    }
    loss_sum += loss;
    ++loss_count;
    if (r.steps % eval_every == 0 || r.steps == config.max_steps) {
      const double bits = trainer.validation_bits_per_char();
      r.curve.push_back({r.steps, bits, loss_sum / double(loss_count) / std::log(2.0)});
      loss_sum = 0;
      loss_count = 0;
      if (bits <= config.target_bits_per_char) {
        r.steps_to_target = r.steps;
        break;
      }
    }
  }
  r.mean_update_s = r.steps > 0 ? update_s / double(r.steps) : 0;
  r.wall_time_s = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

}  // namespace kp
