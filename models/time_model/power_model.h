#pragma once
// Static power of a P-chip system and the average power per chip. Contract: static power is
// drawn over the whole step time (busy or waiting): chip_static and link_static per chip, plus
// host_static per node of devices_per_node chips (ceil(P / devices_per_node) nodes); all zero
// when the hardware file has no `power:` section (then outputs say "not modelled").
#include <cstdint>
#include <string>

#include "core/hw_spec.h"
#include "sim/update_model.h"

namespace kp {

struct StaticPower {
  double chip_w = 0;    // one chip with its links
  double system_w = 0;  // all P chips, their links and their hosts
};

StaticPower static_power(const HardwareSpec& hw, int64_t learners);
// Seconds of one update in which a chip computes (forward + backward + optimizer): chip_busy
// power is drawn over them.
double busy_seconds(const UpdateBreakdown& b);
// Average power per chip (W) of a run that spent chip_energy_j on `learners` chips in t_total_s.
double average_chip_power_w(double chip_energy_j, int64_t learners, double t_total_s);
// Power capping, as GPUs enforce their board power limit by lowering the clock (NVIDIA's power
// management; DVFS): when one update of `u` would draw more than power.tdp per chip on average,
// the compute seconds c (forward, backward and optimizer less the launch waits w, host time) stretch
// by k >= 1 so that the average is exactly the TDP, and breakdown.power_clock_scale = 1/k. With E
// the dynamic energy per chip, s the chip's static power, b its busy power (drawn over c and w) and
// t the update's seconds, E + b (k c + w) + s t' = TDP t' with t' = t + (k - 1) c gives
//   k = (E + b w - (TDP - s)(t - c)) / ((TDP - s - b) c).
// Energy per operation is kept (no voltage scaling: conservative), and the all-reduce overlap is
// not re-timed. No-op without a power: section or TDP, or when s + b leave no budget (the TDP
// warning then stays).
void apply_power_cap(const HardwareSpec& hw, int64_t learners, UpdateResult& u);
// A warning line when the average exceeds the TDP, "" otherwise (or when no TDP is given).
std::string tdp_warning(const HardwareSpec& hw, double average_chip_w);
// "312 W (45% of 700 W TDP)", "312 W (no TDP given)" or "static power not modelled" prefix;
// clock_scale < 1 adds "clock throttled to 95% to stay within it".
std::string power_summary(const HardwareSpec& hw, double average_chip_w, double clock_scale = 1);

}  // namespace kp
