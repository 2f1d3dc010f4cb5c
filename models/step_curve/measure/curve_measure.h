#pragma once
// Measuring a step curve by Shallue et al. 2018's protocol ("Measuring the Effects of Data
// Parallelism on Neural Network Training", arXiv 1811.03600): for every batch size, `trials`
// quasi-random (Halton) settings of learning rate (log-uniform in [lr_min, lr_max]) and 1 - momentum
// (log-uniform in [one_minus_momentum_min, one_minus_momentum_max]; momentum 0 for plain SGD);
// each trial trains until the validation error reaches the target or the step budget; a diverged
// trial is infeasible; the batch size's steps-to-target is the minimum over its trials.
//
// Contract:
// - Pruning: the trials of a batch size run in a fixed order (trial_order(): Halton index, or
//   highest effective learning rate lr/(1-momentum) first); the trial at position p stops after
//   B_p = min steps of the trials at positions 0..p-1 (it cannot beat B_p; reaching the target
//   exactly at B_p is a tie). B_p depends only on earlier trials of the same batch size, which run
//   one after another (a chain per batch size; workers run different batch sizes in parallel), so
//   every trial's record, and the curve, are the same whatever the number of jobs and whatever
//   order trials finish in. Pruning never changes the minimum: a pruned trial's steps-to-target
//   would have been >= B_p >= the minimum.
// - Cost rules per batch size M (all optional, all in the fingerprint): evaluation every
//   eval_every_for(M, eval_samples) steps (eval_rule.h) instead of base.eval_every; a step budget
//   min(base.max_steps, budget_steps + ceil(budget_samples / M)) instead of base.max_steps.
// - Scheduling: a free worker takes the next trial of the ready chain with the largest batch (the
//   most expensive chain starts first, the cheap small-batch trials fill the end: longest
//   processing time first). It changes when trials run, never their records.
// - Journal: one line per finished trial, appended and fsync'ed before the next trial of its batch
//   size starts; resume skips journaled trials, so a kill loses only the trials that were running.
//   The journal starts with a fingerprint line; resuming with other settings is an error.
// - Trials are deterministic given (network, data, spec): the trainer seeds from spec.seed + trial
//   index and runs single-threaded (Eigen without OpenMP), one trial per worker thread.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/trainer/trainer.h"

namespace kp {

enum class TrialOrder { halton, effective_lr_desc };
const char* to_string(TrialOrder order);

struct CurveSearchSpec {
  std::vector<int64_t> batches;
  int trials = 16;
  TrialConfig base;  // optimizer kind, schedule, target, budget, eval_every (lr/momentum/seed set per trial)
  double lr_min = 1e-4, lr_max = 10.0;
  double one_minus_momentum_min = 1e-3, one_minus_momentum_max = 0.5;
  uint64_t seed = 1;
  int jobs = 1;
  bool prune = true;
  int64_t eval_samples = 0;    // > 0: evaluate every ceil(eval_samples / M) steps
  int64_t budget_steps = 0;    // budget_steps or budget_samples > 0: the per-batch budget rule
  int64_t budget_samples = 0;
  TrialOrder order = TrialOrder::halton;
};

// The evaluation interval and the step budget of batch size M under the spec's rules.
int64_t eval_every_of(const CurveSearchSpec& spec, int64_t batch);
int64_t budget_of(const CurveSearchSpec& spec, int64_t batch);
// The order in which a batch size's trials run (and bound each other): a permutation of
// 0..trials-1, the same for every batch size.
std::vector<int> trial_order(const CurveSearchSpec& spec);

enum class TrialOutcome { reached, budget, diverged, pruned };
const char* to_string(TrialOutcome outcome);

struct TrialRecord {
  int64_t batch = 0;
  int trial = 0;
  double learning_rate = 0, momentum = 0;
  std::optional<int64_t> steps;  // steps to target; empty = infeasible or pruned
  TrialOutcome outcome = TrialOutcome::budget;
  double wall_s = 0;
  bool operator==(const TrialRecord& o) const;  // all fields except wall_s
};
// Records in the order a curve is written: by batch size, then trial.
void sort_records(std::vector<TrialRecord>& records);
// One progress line (no newline): batch, trial, lr, momentum, outcome, steps, wall time.
std::string trial_line(const TrialRecord& record);
// Batch sizes as "16,64,256".
std::string join_batches(const std::vector<int64_t>& batches);

struct SearchPoint {
  double learning_rate = 0, momentum = 0;
};
// Halton point trial + 1 (the origin, lr_min exactly, is skipped) mapped log-uniformly.
SearchPoint search_point(const CurveSearchSpec& spec, int trial);
// How trial `trial` at batch size `batch` trains: the spec's base set-up with that batch, the
// point's learning rate and momentum (search_point(), or a record's), seed spec.seed + trial,
// the batch's evaluation interval and step budget. The one place the protocol derives it.
TrialConfig trial_config_of(const CurveSearchSpec& spec, int64_t batch, int trial,
                            const SearchPoint& point);

// One line identifying the settings a journal was made with, and the trainer's arithmetic
// (kTrainerNumerics): a journal or cached curve of other code is not reused.
std::string journal_fingerprint(const CurveSearchSpec& spec);

// Runs the search; `journal_path` empty = no journal. With resume, journaled trials are reused
// (a torn last line is dropped); without it an existing non-empty journal is an error.
// on_trial (may be empty) is called under a lock after each new trial is journaled.
// Returns every trial, sorted by (batch, trial). Throws ConfigError for journal problems.
std::vector<TrialRecord> measure_curve(const ResolvedNetwork& net, const Dataset& data,
                                       const CurveSearchSpec& spec,
                                       const std::string& journal_path, bool resume,
                                       const std::function<void(const TrialRecord&)>& on_trial = {});

// min over each batch size's trials; +inf when none reached the target.
std::vector<std::pair<int64_t, double>> steps_to_target(const std::vector<TrialRecord>& records);

// The curve file (models/step_curve/curve_csv.h format): `# ` comment lines, then
// batch,steps,trial,learning_rate,momentum,outcome,wall_s, one row per trial.
std::string format_curve_csv(const std::vector<TrialRecord>& records, const std::string& comment);

}  // namespace kp
