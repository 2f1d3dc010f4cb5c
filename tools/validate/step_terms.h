#pragma once
// The one-device step time as calibration fits it (tools/validate/calibration_fit.h). At P = 1 and
// compute efficiency e, the analytic model's step time at batch m is
//   t(m; e, L, O) = base(m; e) + sum_k runs_k * max(0, L - c_k(m; e)) + O
// with base the model's step time with no launch latency and no step overhead, c_k the time of one
// run of kernel k, runs_k its launches per step (a recurrence's serial runs, times the
// accumulation micro-steps for forward and backward), L = runtime.kernel_launch and
// O = runtime.step_overhead: StepProfileBuilder's launch rule (sim/step_profile.h) written out so
// that L and O enter in closed form and only e needs the model again. Contract: step_time() equals
// AnalyticUpdate's t_update at P = 1 for the same constants, except where runtime.input_samples_per_s
// makes a step wait for input (left out of base: the fit reports such rows) and with launch
// batching, where L is paid once per step and is folded into base at the hardware's value.
#include <cstdint>
#include <utility>
#include <vector>

#include "tools/study/case_loader.h"

namespace kp {

struct RowTerms {
  double base_s = 0;
  std::vector<std::pair<double, double>> kernels;  // (c_k seconds per run, runs_k), unfused kernels
  // Launch-bound kernel runs at launch latency L: the derivative of t in L (c_k <= L counts, so
  // that at L = 0 a zero-time kernel counts and the column of a fit at a breakpoint is its right side).
  double launch_bound_runs(double launch_s) const;
  double step_time(double launch_s, double overhead_s) const;
};

class StepTerms {
 public:
  // `batches`: the rows' batch sizes, each run on one device.
  StepTerms(const Case& c, std::vector<int64_t> batches);
  // One RowTerms per batch, in order, at compute efficiency `efficiency` (the model runs once per row).
  std::vector<RowTerms> at(double efficiency) const;
  // The hardware of this Case, with the three constants replaced.
  HardwareSpec with(double efficiency, double overhead_s, double launch_s) const;
  bool launch_batched() const { return m_case.hw.runtime.launch_batching; }

 private:
  const Case& m_case;
  std::vector<int64_t> m_batches;
};

// The analytic model's step time at P = 1 on `hw` (the reference step_time() must match).
double one_device_step_s(const Case& c, const HardwareSpec& hw, int64_t batch);

}  // namespace kp
