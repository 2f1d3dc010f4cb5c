#pragma once
// One training trial: a network, a dataset, a batch size and an optimizer setting, trained until
// the validation error reaches a target or a step budget runs out. This is what a measured step
// curve is made of (Shallue et al. 2019: steps to a target validation error vs batch size).
// Contract: deterministic for a given (network, dataset, config) — initialisation, shuffling and
// arithmetic depend only on config.seed, never on the thread or on other trials running at the
// same time (Eigen runs single-threaded here: no OpenMP). All buffers are allocated at
// construction; step() allocates nothing. The Dataset must outlive the Trainer (it is read, never
// copied, so concurrent trials share one).
#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/network_spec.h"
#include "core/workload_spec.h"
#include "models/trainer/dataset.h"
#include "models/trainer/network.h"
#include "models/trainer/optimizer.h"

namespace kp {

// The trainer's arithmetic, numbered: raised whenever a change alters the floats of any trial
// (a product's summation order, a fused loop), so that step curves measured and cached by earlier
// code (step_curve/measure: it is part of their fingerprint) are measured again.
// The rule: any change that moves a loss bit of tests/models/trainer/numerics_pin_test.cpp (it
// pins the first steps of an MLP at batch 1 and 16 and of two CNNs) raises this number by one,
// with a line below saying what changed, and re-pins that test's bits in the same commit. A
// change that keeps every trial's floats (a faster loop in the same order) keeps the number.
// 2 (2026-12-03): dense layers at batches 2..24 sum their column parts (matvec_parts.h).
// 3 (2026-12-04): 5 x 5 stride-1 convolutions over >= 8 channels by Winograd F(2x2, 5x5).
// 4 (2026-12-04): ... by F(4x4, 5x5) (conv_winograd.h).
// 5 (2026-12-04): dense layers of <= 256 rows multiply at batch 1 in column order
//   (matvec_columns.h).
constexpr int kTrainerNumerics = 5;

struct TrialConfig {
  int64_t batch = 128;
  OptimizerSpec optimizer;         // kind, learning_rate, momentum, weight decay, schedule
  int64_t max_steps = 10000;
  int64_t eval_every = 100;        // steps between validation evaluations
  double target_error = 0.1;       // stop at the first evaluation with error <= target
  uint64_t seed = 1;
  WeightInit init = WeightInit::He;  // the workload's `init`
  double divergence_loss = 1e3;    // a mini-batch loss above this (or non-finite) is divergence
  int threads = 1;                 // threads of this one trial (large products split; same values)
  StepPath path = StepPath::Auto;  // reference or fused fast step (network.h)
  // Whether each step sums its gradient's squared norm (Trainer::last_grad_sq_norm): a noise-
  // scale measurement asks for it; training alone does not pay for it (~2% of an MLP b=16 step).
  bool grad_sq_norm = false;
};

struct ValidationPoint {
  int64_t step = 0;
  double validation_error = 0;
  double train_loss = 0;           // mean mini-batch loss since the previous evaluation
};

struct TrialResult {
  std::optional<int64_t> steps_to_target;
  std::vector<ValidationPoint> curve;
  bool diverged = false;
  int64_t steps = 0;               // updates performed
  double wall_time_s = 0;          // everything, evaluations included
  double mean_update_s = 0;        // mean time of one update (batch gather, fwd, bwd, optimizer)
};

class Trainer {
 public:
  Trainer(const ResolvedNetwork& net, const Dataset& data, const TrialConfig& config);
  // One update on the next mini-batch; returns its mean loss.
  double step();
  // Squared L2 norm of the last mini-batch gradient of the loss (no weight decay), for
  // McCandlish et al. 2018's noise scale B_simple = tr(Sigma) / |G|^2. At batch 1 the dense
  // weight gradients are fused into the update (network().grads() lacks them); this norm
  // includes them. Only with config.grad_sq_norm (std::logic_error otherwise: a caller's bug).
  double last_grad_sq_norm() const;
  double evaluate(const Split& split);  // classification error in [0, 1]
  // Whether evaluate(split) <= target, stopping at the first chunk whose running error count
  // already exceeds it (exact: the count only grows). A step curve asks only this question, and
  // trials far from the target answer it after a fraction of the validation set.
  bool error_at_most(const Split& split, double target);
  int64_t steps_done() const { return m_step; }
  const int32_t* last_labels() const { return m_labels.data(); }  // of the last mini-batch
  Network<float>& network() { return m_net; }
  const Network<float>& network() const { return m_net; }  // e.g. for a noise-scale probe

 private:
  // The indices of the next mini-batch in the training split (a new shuffle at each epoch).
  const int64_t* draw();
  // The next mini-batch into the network's input: drawn now, or at batch 1 by the last step.
  void next_batch();

  const Dataset& m_data;
  TrialConfig m_cfg;
  Network<float> m_net;
  Optimizer m_opt;
  std::vector<int64_t> m_perm;
  std::vector<int32_t> m_labels;
  std::vector<float> m_next_x;  // batch 1: the next sample, drawn by step() before the update
  int32_t m_next_label = 0;
  bool m_next_drawn = false;
  int64_t m_pos = 0, m_epoch = 0, m_step = 0;
  double m_grad_sq = 0;
  bool m_grad_sq_fused = false;
};

// Called after every update; may read trainer.last_grad_sq_norm() (with config.grad_sq_norm).
class StepObserver {
 public:
  virtual ~StepObserver() = default;
  virtual void on_step(int64_t step, double loss, const Trainer& trainer) = 0;
};

// Trains until the target, divergence, config.max_steps or stop_after_steps (if > 0, e.g. a
// trial that can no longer beat the best one) updates.
TrialResult train_trial(const ResolvedNetwork& net, const Dataset& data, const TrialConfig& config,
                        int64_t stop_after_steps = 0, StepObserver* observer = nullptr);

// The workload's optimizer and target with the given batch.
TrialConfig trial_config_from(const WorkloadSpec& workload, int64_t batch);

}  // namespace kp
