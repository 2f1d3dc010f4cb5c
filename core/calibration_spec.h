#pragma once
// Where a hardware file's device constants come from: the `calibration:` section that
// `kneepoint calibrate` writes into a calibrated hardware file (tools/cmd_calibrate.cpp). Contract:
// absent = the file's constants are its spec sheet's (`present` false, "spec-only"); present =
// the values named in `fitted` were fitted by least squares to the measured step times of
// `measurements`, and `rows` records the fit's residuals. The section only records provenance:
// the fitted values themselves live in their own keys (chip.compute.efficiency,
// runtime.step_overhead, runtime.kernel_launch), so a model reads nothing from here.
#include <cstdint>
#include <string>
#include <vector>

#include "core/config_map.h"

namespace kp {

// The device constants calibrate may fit, in this order.
enum class FittedConstant { ComputeEfficiency, StepOverhead, KernelLaunch };
constexpr int kFittedConstants = 3;
const char* fitted_constant_name(FittedConstant c);  // "compute_efficiency", "step_overhead", "kernel_launch"

struct CalibrationRow {
  int64_t line = 0;         // 1-based line of the row in the measurement file
  int64_t batch = 0;        // samples per step on the one device
  double measured_s = 0;    // measured step time
  double spec_s = 0;        // the spec-only prediction (the base file's constants)
  double calibrated_s = 0;  // the prediction with the fitted constants
};

struct CalibrationSpec {
  bool present = false;
  std::string file;          // the hardware file that holds the section (for outputs)
  std::string spec;          // the uncalibrated hardware file (the `base:`), relative to `file`
  std::string spec_fnv1a64;  // FNV-1a 64 of its bytes, 16 hex digits
  std::string measurements;  // the measurement file, relative to `file`
  std::string measurements_fnv1a64;
  std::string workload;      // the workload file the step times were measured for, relative to `file`
  bool fitted[kFittedConstants] = {false, false, false};
  // The fitted values as calibrate wrote them (`fitted_values`, in FittedConstant order, SI: a
  // factor, seconds, seconds), and the keys whose value in the loaded file differs from them (a
  // --set, or a file derived with base:): such a prediction is no longer the calibrated one.
  double values[kFittedConstants] = {0, 0, 0};
  std::string changed;
  double condition_index = 1;     // of the fit's scaled Jacobian (Belsley et al. 1980)
  double rms_relative_error = 0;  // sqrt(mean(((calibrated - measured) / measured)^2))
  std::vector<CalibrationRow> rows;
  bool is_fitted(FittedConstant c) const { return fitted[static_cast<int>(c)]; }
  // "compute_efficiency, step_overhead"
  std::string fitted_text() const;
};

// Reads the keys of a `calibration:` map (rejecting unknown ones); `file` is the hardware file.
// `current` holds the values the file now gives the three constants, to fill `changed`.
CalibrationSpec parse_calibration(ConfigMap m, const std::string& file, const double (&current)[kFittedConstants]);

// The YAML key of each constant: chip.compute.efficiency, runtime.step_overhead, runtime.kernel_launch.
const char* fitted_constant_key(FittedConstant c);

// What every prediction states about its device constants: "spec-only", or
// "calibrated (from FILE: compute_efficiency, step_overhead fitted to MEASUREMENTS)", with
// "; changed since: KEY" when a fitted value was overridden.
std::string constants_provenance(const CalibrationSpec& c);

}  // namespace kp
