#pragma once
// The step curve a workload names, as a law. Contract: `law` is used as given; `file` is fitted
// with fit_law_log_ls (least squares in log space); `measure` is its cached CSV when the cache's
// fingerprint matches the workload's network, data, target, search settings and protocol, else
// it is measured now with the reference trainer (progress on stderr; models/step_curve/measure/
// curve_cache.h) and cached atomically, then fitted the same way. A missing or bad file is a
// ConfigError naming it.
#include "core/workload_spec.h"
#include "models/step_curve/step_law.h"

namespace kp {

StepLaw resolve_step_law(const WorkloadSpec& workload, const std::string& workload_file);

}  // namespace kp
