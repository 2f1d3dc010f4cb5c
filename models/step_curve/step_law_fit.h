#pragma once
// Fitting the step-curve law N(M) = N_inf + alpha/M (Perrone et al. 2019; McCandlish et al. 2018
// S(B) = S_min (1 + B_crit/B)) to measured steps-to-target.
//
// Contract:
// - Input: trials (batch, steps); steps = +inf marks a failed trial. A batch size's value is the
//   minimum over its finite trials (Shallue et al. 2018); batch sizes whose trials all failed are
//   dropped and listed. Fewer than 2 distinct batch sizes left -> ConfigError naming options.origin.
// - Fit: least squares in log space, min sum_i (log N_i - log(N_inf + alpha/M_i))^2 with
//   N_inf >= 0, alpha >= 0. Deterministic: written as N_inf (1 + b/M) with b = B_crit, log N_inf
//   has a closed form for each b, and b is found by a log-spaced grid plus golden-section search,
//   with the two boundary laws (alpha = 0, N_inf = 0) compared as well.
// - R^2 is in log space: 1 - SS_res/SS_tot over log N_i.
// - Confidence intervals: percentile bootstrap with a fixed seed. If any batch size has two or more
//   trials, trials are resampled within each batch size (the minimum recomputed); otherwise log
//   residuals are resampled (inflated by sqrt(n/(n-2))) around the fitted curve.
// - Regimes (definitions): perfect scaling while alpha/M >= 9 N_inf, i.e. M <= B_crit/9 (the curve
//   is within 10% of the perfect-scaling line alpha/M); plateau where N(M) <= 1.1 N_inf, i.e.
//   M >= 10 B_crit; diminishing returns in between. The maximum useful batch size is 10 B_crit:
//   past it, an unbounded batch saves at most 1/11 of the steps.
#include <cstdint>
#include <string>
#include <vector>

#include "models/step_curve/curve_csv.h"
#include "models/step_curve/step_law.h"

namespace kp {

struct FitOptions {
  std::string origin = "step curve";  // names the data in errors (e.g. the CSV path)
  int bootstrap_resamples = 1000;     // 0 = no confidence intervals (lo = hi = value)
  std::uint64_t seed = 1;
  double confidence = 0.95;           // percentile interval [(1-c)/2, (1+c)/2]
};

struct Estimate {
  double value = 0.0;
  double lo = 0.0;  // percentile-bootstrap bounds
  double hi = 0.0;
};

enum class Regime { perfect_scaling, diminishing_returns, plateau };
const char* to_string(Regime regime);
Regime regime_of(const StepLaw& law, double batch);

struct StepLawFit {
  StepLaw law;
  Estimate n_inf, alpha, b_crit, max_useful_batch;
  double r2_log = 0.0;    // R^2 of log N (log space)
  double rmse_log = 0.0;  // root-mean-square log residual
  std::vector<CurvePoint> points;       // the fitted curve: min steps per batch size, ascending
  std::vector<double> dropped_batches;  // batch sizes whose trials all failed
  std::string bootstrap_method;         // "trials", "residuals" or "none"
  int resamples = 0;                    // bootstrap resamples that gave a fit
  std::vector<StepLaw> bootstrap_laws;  // the law of each of those resamples (for bands, step_band.h)

  double perfect_scaling_max_batch() const { return law.b_crit() / 9.0; }
  double plateau_min_batch() const { return 10.0 * law.b_crit(); }
};

// Collapses trials to one point per batch size (minimum over finite trials), ascending by batch.
std::vector<CurvePoint> best_per_batch(const std::vector<CurvePoint>& trials);

// The least-squares law alone, on one point per batch size (no bootstrap). Throws ConfigError
// (origin named) for fewer than 2 distinct batch sizes or non-finite / non-positive values.
StepLaw fit_law_log_ls(const std::vector<CurvePoint>& points, const std::string& origin = "step curve");

StepLawFit fit_step_law(const std::vector<CurvePoint>& trials, const FitOptions& options = {});

}  // namespace kp
