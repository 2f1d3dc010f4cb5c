#pragma once
// Fits at most three device constants of a hardware file to measured step times of one device
// (a batch sweep at P = 1): chip.compute.efficiency e, runtime.step_overhead O and
// runtime.kernel_launch L. Contract:
// - The objective is least squares on relative residuals, sum_i ((t_i - y_i) / y_i)^2: the errors
//   that matter are relative and a sweep spans an order of magnitude in step time, so plain least
//   squares would fit the largest batches only.
// - e enters the model non-linearly (only the compute-bound parts of a step scale with it): a
//   deterministic 1-D search over e in [0.01, 1] (a log grid, then golden-section refinement); for
//   each e, O and L have an exact constrained least-squares solution (O >= 0, L in [0, 10 s]), since
//   t is piecewise linear in L (tools/validate/step_terms.h).
// - Identifiability: at P = 1 every row launches the same kernels, so L moves a row's time only
//   through the kernels shorter than L; where that count does not vary over the sweep, L is the
//   same column as O. L is fitted only when the Jacobian of the three-constant fit (rows weighted,
//   columns scaled to unit length) has a condition index <= 30, the bound above which Belsley, Kuh
//   & Welsch (Regression Diagnostics, 1980) read the columns as collinear, and some kernel is
//   launch-bound; otherwise L keeps the hardware file's value and `launch_note` says why.
// - With runtime.launch_batching L is paid once per step, exactly like O: never fitted.
// - Predictions (spec and calibrated) come from the analytic model itself, not from the fit's
//   closed form; rows where the two differ (an input-bound step) are listed in `notes`.
#include <limits>
#include <string>
#include <vector>

#include "core/calibration_spec.h"
#include "tools/study/case_loader.h"
#include "tools/validate/step_measurements.h"
#include "tools/validate/step_terms.h"

namespace kp {

struct ConstantsFit {
  double compute_efficiency = 0, step_overhead_s = 0, kernel_launch_s = 0;
  bool fitted[kFittedConstants] = {false, false, false};
  double condition_index = 1;     // of the accepted fit's scaled Jacobian
  double condition_index_all = 1; // of the three-constant fit's (infinite: L has no effect)
  double rms_relative_error = 0;  // of the calibrated predictions
  std::vector<double> spec_s, calibrated_s;  // per row: the model with the file's / the fitted constants
  std::string launch_note;        // why kernel_launch was or was not fitted
  std::vector<std::string> notes; // constants at a bound, rows the closed form does not cover
};

// `keep_launch`: L stays at the hardware file's value whatever the data say (a latency measured
// separately, e.g. with a null-kernel benchmark).
ConstantsFit fit_device_constants(const Case& c, const std::vector<StepMeasurement>& rows, bool keep_launch = false);

// The parts of the fit, for tests.
struct LaunchOverheadFit {
  double sse = std::numeric_limits<double>::infinity();  // sum_i w_i (t_i - y_i)^2
  double launch_s = 0, overhead_s = 0;
};
// Exact minimum of sum_i w_i (rows[i].step_time(L, O) - y_i)^2 over L in [0, 10 s], O >= 0.
LaunchOverheadFit fit_launch_overhead(const std::vector<RowTerms>& rows, const std::vector<double>& y,
                                      const std::vector<double>& w);
// Condition index of a matrix given by its columns: the largest over the smallest singular value
// after scaling each column to unit length (Belsley et al. 1980); infinite for a zero column or
// linearly dependent columns.
double condition_index(const std::vector<std::vector<double>>& columns);

}  // namespace kp
