#include "models/time_model/step_source.h"

#include <fstream>
#include <iostream>

#include "core/config_error.h"
#include "models/step_curve/measure/curve_cache.h"
#include "models/step_curve/step_law_fit.h"

namespace kp {

StepLaw resolve_step_law(const WorkloadSpec& w, const std::string& workload_file) {
  const StepCurveSpec& spec = w.step_curve;
  if (spec.source == StepCurveSource::Law) return StepLaw{spec.n_inf, spec.alpha};
  if (spec.source == StepCurveSource::Measure)
    return fit_law_log_ls(best_per_batch(cached_or_measured_curve(w, std::cerr)), spec.path);
  if (!std::ifstream(spec.path))
    throw ConfigError(workload_file, "step_curve.path: cannot open \"" + spec.path + "\"");
  return fit_law_log_ls(best_per_batch(read_curve_csv(spec.path)), spec.path);
}

}  // namespace kp
