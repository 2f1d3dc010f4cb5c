#pragma once
// The step curve a workload names, as a law. Contract: `law` is used as given; `file` and
// `measure` (its cached CSV) are fitted with fit_law_log_ls (least squares in log space); a
// missing or bad file is a ConfigError naming it.
#include "core/workload_spec.h"
#include "models/step_curve/step_law.h"

namespace kp {

StepLaw resolve_step_law(const StepCurveSpec& spec, const std::string& workload_file);

}  // namespace kp
