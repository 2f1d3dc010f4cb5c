#include "models/time_model/chip_area.h"

#include <stdexcept>

namespace kp {

AreaBreakdown chip_area(const HardwareSpec& hw) {
  if (!hw.area.modelled) throw std::logic_error("chip_area: the hardware has no area: section");
  const AreaSpec& a = hw.area;
  AreaBreakdown b;
  const double macs = static_cast<double>(hw.array.rows * hw.array.cols * hw.array.count);
  b.mac_m2 = macs * a.mac_m2;
  b.vector_m2 = static_cast<double>(hw.vector.lanes * hw.vector.count) * a.vector_lane_m2;
  b.sram_m2 = hw.sram.capacity_bytes / 1048576.0 * a.sram_m2_per_mib;
  b.dram_phy_m2 = static_cast<double>(hw.dram.channels) * a.dram_phy_m2;
  b.link_phy_m2 = static_cast<double>(hw.interconnect.links_per_chip) * a.link_phy_m2;
  b.other_m2 = a.other_m2;
  b.total_m2 = b.mac_m2 + b.vector_m2 + b.sram_m2 + b.dram_phy_m2 + b.link_phy_m2 + b.other_m2;
  return b;
}

}  // namespace kp
