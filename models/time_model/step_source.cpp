#include "models/time_model/step_source.h"

#include <fstream>

#include "core/config_error.h"
#include "models/step_curve/step_law_fit.h"

namespace kp {

StepLaw resolve_step_law(const StepCurveSpec& spec, const std::string& workload_file) {
  if (spec.source == StepCurveSource::Law) return StepLaw{spec.n_inf, spec.alpha};
  if (!std::ifstream(spec.path)) {
    throw ConfigError(workload_file, "step_curve.path: cannot open \"" + spec.path +
                                         (spec.source == StepCurveSource::Measure
                                              ? "\" (run `kneepoint curve` to measure it)"
                                              : "\""));
  }
  return fit_law_log_ls(best_per_batch(read_curve_csv(spec.path)), spec.path);
}

}  // namespace kp
