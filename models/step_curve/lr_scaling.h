#pragma once
// How the best metaparameters move with the batch size. Shallue et al. 2018 (section 4.7) find
// that the optimal learning rate follows neither the linear scaling rule (lr* ~ M; Goyal et al.
// 2017) nor the square-root rule (lr* ~ sqrt(M); Krizhevsky 2014) across all batch sizes, and
// that the effective learning rate lr/(1 - momentum) is what matters for momentum SGD.
// Contract:
// - Input: per-trial rows (batch, steps, learning_rate, momentum, trial); a batch size's best
//   trial is the one with the fewest steps (ties: the lowest trial index); batch sizes whose
//   trials all failed are skipped.
// - Fit: ordinary least squares of log lr* on log M, slope = the scaling exponent, with a
//   two-sided 95% Student-t interval (n - 2 degrees of freedom); the same for the effective
//   learning rate lr*/(1 - momentum*). Fewer than 3 batch sizes -> ConfigError naming origin.
#include <string>
#include <vector>

namespace kp {

struct TrialRow {
  double batch = 0, steps = 0;  // steps = +inf: failed
  double learning_rate = 0, momentum = 0;
  int trial = 0;
};

struct BestMetaparameters {
  double batch = 0, steps = 0, learning_rate = 0, momentum = 0;
  int trial = 0;
};

struct ScalingExponent {
  double value = 0, lo = 0, hi = 0;  // slope of log y vs log M, 95% t interval
  double r2 = 0;
  bool contains(double e) const { return e >= lo && e <= hi; }
};

struct LrScaling {
  std::vector<BestMetaparameters> best;  // ascending batch
  ScalingExponent lr, effective_lr;
};

// Rows of a curve CSV with the columns batch, steps, learning_rate, momentum (trial optional:
// row order). Throws ConfigError with file:line:col for bad fields or missing columns.
std::vector<TrialRow> read_trial_rows(const std::string& path);

std::vector<BestMetaparameters> best_metaparameters(const std::vector<TrialRow>& rows);

// log-log least squares with a 95% t interval; needs >= 3 points with x not all equal.
ScalingExponent fit_exponent(const std::vector<double>& x, const std::vector<double>& y,
                             const std::string& origin);

LrScaling fit_lr_scaling(const std::vector<TrialRow>& rows, const std::string& origin);

// Two-sided 95% Student-t quantile t_{0.975, dof} (dof >= 1).
double student_t_975(int dof);

}  // namespace kp
