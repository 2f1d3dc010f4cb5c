#include "core/runtime_spec.h"

#include "core/limits.h"

namespace kp {

RuntimeSpec parse_runtime(ConfigMap m) {
  RuntimeSpec r;
  r.present = true;
  constexpr double kMaxFixedS = 10.0;  // a launch or step overhead of seconds is a unit typo
  r.kernel_launch_s = m.quantity_nonneg_or("kernel_launch", Dim::Seconds, kMaxFixedS, 0.0);
  r.step_overhead_s = m.quantity_nonneg_or("step_overhead", Dim::Seconds, kMaxFixedS, 0.0);
  r.host_link_bytes_per_s = m.quantity_or("host_link", Dim::BytesPerSecond, limits::kMinBandwidth,
                                          limits::kMaxBandwidth, 0.0);
  r.input_samples_per_s = m.number_or("input_samples_per_s", 1e-3, 1e12, 0.0);
  r.launch_batching = m.boolean_or("launch_batching", false);
  m.check_unknown();
  return r;
}

}  // namespace kp
