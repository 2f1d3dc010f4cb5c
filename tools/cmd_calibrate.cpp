// kneepoint calibrate --hw F --workload F MEASUREMENTS.csv --out CALIBRATED.yaml: fits at most
// three device constants (compute efficiency, per-step overhead, per-kernel latency) to the
// measured step times of one device over a batch sweep (tools/validate/calibration_fit.h) and
// writes a calibrated hardware file with the fit's provenance and residuals
// (tools/validate/calibrated_hw_file.h), atomically.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/atomic_file.h"
#include "core/config_error.h"
#include "core/number_format.h"
#include "tools/cli_common.h"
#include "tools/report/report_writer.h"
#include "tools/study/update_case.h"
#include "tools/validate/calibrated_hw_file.h"
#include "tools/validate/calibration_fit.h"
#include "tools/validate/pollux_validation.h"
#include "tools/validate/step_measurements.h"

namespace kp {

namespace {

double ape(double pred, double meas) { return 100.0 * std::fabs(pred - meas) / meas; }

void print_fit(const Case& c, const StepMeasurements& m, const ConstantsFit& f) {
  std::printf("calibrate %s for %s on %s (%s, %zu rows)\n", c.hw.name.c_str(), c.workload.name.c_str(),
              m.path.c_str(), m.layout.c_str(), m.rows.size());
  std::printf("  compute efficiency  %-12s -> %-12s fitted\n", format_sig(c.hw.compute_efficiency, 4).c_str(),
              format_sig(f.compute_efficiency, 4).c_str());
  std::printf("  step overhead       %-12s -> %-12s fitted\n", human_seconds(c.hw.runtime.step_overhead_s).c_str(),
              human_seconds(f.step_overhead_s).c_str());
  std::printf("  kernel launch       %-12s -> %-12s %s\n", human_seconds(c.hw.runtime.kernel_launch_s).c_str(),
              human_seconds(f.kernel_launch_s).c_str(), f.launch_note.c_str());
  std::vector<double> meas;
  for (const StepMeasurement& r : m.rows) meas.push_back(r.step_time_s);
  std::printf("  condition index %s; RMS relative error %.2f%%; median APE spec-only %.1f%%, calibrated %.1f%%\n",
              format_sig(f.condition_index, 3).c_str(), 100 * f.rms_relative_error, median_ape(f.spec_s, meas),
              median_ape(f.calibrated_s, meas));
  std::printf("  %-5s %7s | %10s | %10s %6s | %10s %6s\n", "line", "batch", "measured", "spec-only", "APE%",
              "calibrated", "APE%");
  for (size_t i = 0; i < m.rows.size(); ++i) {
    const StepMeasurement& r = m.rows[i];
    std::printf("  %-5d %7lld | %10s | %10s %6.1f | %10s %6.1f\n", r.line, static_cast<long long>(r.batch),
                human_seconds(r.step_time_s).c_str(), human_seconds(f.spec_s[i]).c_str(), ape(f.spec_s[i], r.step_time_s),
                human_seconds(f.calibrated_s[i]).c_str(), ape(f.calibrated_s[i], r.step_time_s));
  }
  for (const std::string& n : f.notes) std::printf("  note: %s\n", n.c_str());
}

}  // namespace

int run_calibrate(const Args& args) {
  po::options_description desc("calibrate options");
  std::string hw, workload, measurements, out;
  bool keep_launch = false;
  desc.add_options()("hw", po::value(&hw)->required(), "hardware YAML to calibrate")(
      "workload", po::value(&workload)->required(), "workload YAML the step times were measured for")(
      "measurements", po::value(&measurements)->required(),
      "CSV of one device's step times: batch,step_time_s (or a Pollux placements.csv / scalability.csv)")(
      "out", po::value(&out)->required(), "calibrated hardware YAML to write")(
      "keep-kernel-launch", po::bool_switch(&keep_launch),
      "keep runtime.kernel_launch at the hardware file's value (e.g. measured separately)");
  po::positional_options_description pos;
  pos.add("measurements", 1);
  po::variables_map vm;
  if (!parse_options("calibrate", "kneepoint calibrate --hw F --workload F MEASUREMENTS.csv --out CALIBRATED.yaml [--keep-kernel-launch]",
                     args, desc, vm, &pos))
    return 0;
  const Case c = load_update_case(hw, workload);  // no N(M): never reads or measures the curve
  const StepMeasurements m = read_step_measurements(measurements);
  const ConstantsFit f = fit_device_constants(c, m.rows, keep_launch);
  print_fit(c, m, f);
  CalibratedFileInputs in{out, hw, workload, &c.hw, &m, &f};
  try {
    write_file_atomic(out, calibrated_hw_yaml(in));
  } catch (const std::runtime_error& e) {
    throw ConfigError("--out", "cannot write \"" + out + "\": " + e.what());
  }
  std::printf("wrote %s\n", out.c_str());
  return 0;
}

}  // namespace kp
