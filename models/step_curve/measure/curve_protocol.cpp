#include "models/step_curve/measure/curve_protocol.h"

#include "core/config_error.h"
#include "models/step_curve/measure/eval_rule.h"

namespace kp {

CurveProtocol curve_protocol(const std::string& name, const std::string& origin) {
  CurveProtocol p;
  p.name = name;
  p.eval_samples = k_default_eval_samples;
  p.budget_steps = 600;
  p.budget_samples = 300000;
  p.order = TrialOrder::effective_lr_desc;
  if (name == "full") {
    for (int64_t m = 16; m <= 8192; m *= 2) p.batches.push_back(m);
    p.trials = 16;
  } else if (name == "quick") {
    p.batches = {16, 64, 256, 1024, 2048};
    p.trials = 8;
  } else {
    throw ConfigError(origin, "expected a protocol full or quick, got \"" + name + "\"");
  }
  return p;
}

void apply_protocol(const CurveProtocol& p, CurveSearchSpec& s) {
  s.batches = p.batches;
  s.trials = p.trials;
  s.eval_samples = p.eval_samples;
  s.budget_steps = p.budget_steps;
  s.budget_samples = p.budget_samples;
  s.order = p.order;
}

}  // namespace kp
