#pragma once
// The calibrated hardware file `kneepoint calibrate` writes. Contract: the text is
//   base: <the input hardware file>        (relative to the written file)
//   name: <its name>-calibrated
//   chip.compute.efficiency, runtime.step_overhead (and runtime.kernel_launch when fitted)
//   calibration: provenance (core/calibration_spec.h): the spec file and the measurement file
//                with their FNV-1a 64 hashes, the workload, what was fitted, the condition index,
//                the RMS relative error and every row's measured, spec and calibrated step time
// Every other value comes from the base through `base:` (core/config_doc.h), so the written file
// shows only what calibration changed. Deterministic: the same inputs give the same bytes (no
// date, no absolute path unless the files share no top-level folder). Values are written to 10 significant
// digits, so they read back within 1e-9 relative.
#include <string>

#include "core/hw_spec.h"
#include "tools/validate/calibration_fit.h"
#include "tools/validate/step_measurements.h"

namespace kp {

struct CalibratedFileInputs {
  std::string out_path;       // where the file will be written
  std::string hw_path;        // the hardware file calibrated
  std::string workload_path;
  const HardwareSpec* hw = nullptr;       // parsed from hw_path
  const StepMeasurements* measurements = nullptr;
  const ConstantsFit* fit = nullptr;
};

std::string calibrated_hw_yaml(const CalibratedFileInputs& in);

// `path` as seen from the folder of `from_file` (lexically, no symbolic links resolved); absolute
// when the two share no top-level folder (a file written to /tmp names /work/... absolutely).
std::string path_from(const std::string& from_file, const std::string& path);

}  // namespace kp
