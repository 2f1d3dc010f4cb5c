#pragma once
// Die area from the design: the array's MACs, vector lanes, SRAM, DRAM PHYs and links at the
// per-unit figures of the hardware file's `area:` section. Contract: only for hw.area.modelled;
// every part is in m^2 and total_m2 is their sum.
#include "core/hw_spec.h"

namespace kp {

struct AreaBreakdown {
  double mac_m2 = 0, vector_m2 = 0, sram_m2 = 0, dram_phy_m2 = 0, link_phy_m2 = 0, other_m2 = 0;
  double total_m2 = 0;
};

AreaBreakdown chip_area(const HardwareSpec& hw);

}  // namespace kp
