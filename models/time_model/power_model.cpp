#include "models/time_model/power_model.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace kp {

StaticPower static_power(const HardwareSpec& hw, int64_t learners) {
  StaticPower s;
  if (!hw.power.modelled) return s;
  const PowerSpec& p = hw.power;
  s.chip_w = p.chip_static_w + static_cast<double>(hw.interconnect.links_per_chip) * p.link_static_w;
  const int64_t per_node = hw.interconnect.devices_per_node;
  const int64_t nodes = (learners + per_node - 1) / per_node;
  s.system_w = static_cast<double>(learners) * s.chip_w + static_cast<double>(nodes) * p.host_static_w;
  return s;
}

double busy_seconds(const UpdateBreakdown& b) { return b.forward_s + b.backward_s + b.optimizer_s; }

void apply_power_cap(const HardwareSpec& hw, int64_t learners, UpdateResult& u) {
  if (!hw.power.modelled || hw.power.tdp_w <= 0 || learners < 1) return;
  UpdateBreakdown& b = u.breakdown;
  // Launch waits are host time: busy power is drawn over them, but a slower clock does not stretch them.
  const double busy = busy_seconds(b), c = busy - b.launch_wait_s;
  const double s = static_power(hw, learners).chip_w, budget_w = hw.power.tdp_w - s - hw.power.chip_busy_w;
  const double e = u.energy_j / static_cast<double>(learners);
  if (!(c > 0) || !(budget_w > 0)) return;
  const double k =
      (e + hw.power.chip_busy_w * b.launch_wait_s - (hw.power.tdp_w - s) * (b.t_update_s - c)) / (budget_w * c);
  if (!(k > 1)) return;
  const double grow = 1 + (k - 1) * c / busy;  // the added seconds, spread over the phases by their share
  b.forward_s *= grow, b.backward_s *= grow, b.optimizer_s *= grow;
  b.t_update_s += (k - 1) * c;
  b.power_clock_scale = 1 / k;
}

double average_chip_power_w(double chip_energy_j, int64_t learners, double t_total_s) {
  if (learners < 1 || !(t_total_s > 0)) return 0.0;
  return chip_energy_j / (static_cast<double>(learners) * t_total_s);
}

std::string tdp_warning(const HardwareSpec& hw, double average_chip_w) {
  if (!hw.power.modelled || hw.power.tdp_w <= 0 || average_chip_w <= hw.power.tdp_w) return "";
  char buf[256];
  std::snprintf(buf, sizeof buf, "warning: %s: average power per chip %.4g W exceeds power.tdp %.4g W "
                "(static, busy and link power alone leave no room to throttle into)", hw.name.c_str(), average_chip_w,
                hw.power.tdp_w);
  return buf;
}

std::string power_summary(const HardwareSpec& hw, double average_chip_w, double clock_scale) {
  char buf[224];
  if (!hw.power.modelled) {
    std::snprintf(buf, sizeof buf, "%.4g W dynamic only (static power not modelled: no power: section)",
                  average_chip_w);
  } else if (hw.power.tdp_w > 0) {
    std::snprintf(buf, sizeof buf, "%.4g W (%.0f%% of %.4g W TDP)", average_chip_w,
                  100.0 * average_chip_w / hw.power.tdp_w, hw.power.tdp_w);
    if (clock_scale < 1) {
      const size_t n = std::strlen(buf);
      std::snprintf(buf + n, sizeof buf - n, ", clock throttled to %.1f%% to stay within it", 100.0 * clock_scale);
    }
  } else {
    std::snprintf(buf, sizeof buf, "%.4g W (no TDP given)", average_chip_w);
  }
  return buf;
}

}  // namespace kp
