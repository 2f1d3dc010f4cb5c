// Static/busy power, die area, yield and chip price on hand-computed cases.
#include <gtest/gtest.h>

#include <cmath>

#include "models/time_model/chip_area.h"
#include "models/time_model/chip_cost.h"
#include "models/time_model/power_model.h"
#include "models/time_model/time_model.h"

namespace kp {
namespace {

// 1 s of forward per update, nothing else, no dynamic energy.
class OneSecondUpdate : public UpdateModel {
 public:
  const char* fidelity() const override { return "test"; }
  UpdateResult simulate(int64_t batch, int64_t learners, std::vector<LayerRecord>*) const override {
    UpdateResult r;
    r.per_learner_batch = (batch + learners - 1) / learners;
    r.breakdown.forward_s = 0.25;
    r.breakdown.allreduce_exposed_s = 0.75;
    r.breakdown.t_update_s = 1.0;
    r.energy_j = 4.0;  // dynamic, all learners
    return r;
  }
};

HardwareSpec powered() {
  HardwareSpec hw;
  hw.name = "test-chip";
  hw.power.modelled = true;
  hw.power.tdp_w = 100;
  hw.power.chip_static_w = 50;
  hw.power.chip_busy_w = 40;
  hw.power.link_static_w = 5;
  hw.power.host_static_w = 1000;
  hw.interconnect.links_per_chip = 2;
  hw.interconnect.devices_per_node = 8;
  return hw;
}

HardwareSpec built() {
  HardwareSpec hw;
  hw.array.rows = 100;
  hw.array.cols = 100;
  hw.array.count = 10;                 // 1e5 MACs
  hw.vector.lanes = 1000;
  hw.sram.capacity_bytes = 16 * 1048576.0;
  hw.dram.channels = 4;
  hw.dram.capacity_bytes = 16e9;
  hw.interconnect.links_per_chip = 2;
  hw.area.modelled = true;
  hw.area.mac_m2 = 200e-12;            // 200 um2: 20 mm2
  hw.area.vector_lane_m2 = 1000e-12;   // 1 mm2
  hw.area.sram_m2_per_mib = 0.5e-6;    // 8 mm2
  hw.area.dram_phy_m2 = 10e-6;         // 40 mm2
  hw.area.link_phy_m2 = 5e-6;          // 10 mm2
  hw.area.other_m2 = 21e-6;            // total 100 mm2
  hw.cost.model = CostModel::Build;
  hw.cost.wafer_usd = 10000;
  hw.cost.defects_per_m2 = 1000;       // 0.1 per cm2: AD = 0.1
  hw.cost.yield_model = YieldModel::NegativeBinomial;
  hw.cost.clustering = 2;
  hw.cost.dram_usd_per_byte = 10.0 / 1e9;
  hw.cost.packaging_usd = 100;
  hw.cost.lifetime_s = 1000 * 3600.0;
  return hw;
}

}  // namespace

TEST(PowerModel, StaticPowerCountsChipsLinksAndHosts) {
  const StaticPower s = static_power(powered(), 12);  // 2 nodes of 8
  EXPECT_DOUBLE_EQ(s.chip_w, 60.0);                    // 50 + 2 x 5
  EXPECT_DOUBLE_EQ(s.system_w, 12 * 60.0 + 2 * 1000.0);
  EXPECT_DOUBLE_EQ(static_power(HardwareSpec{}, 12).system_w, 0.0);
}

TEST(PowerModel, RunEnergyAddsStaticOverStepAndBusyOverCompute) {
  const HardwareSpec hw = powered();
  const StepLaw law{100, 0};  // 100 steps
  const TimePoint p = evaluate_point(OneSecondUpdate(), law, hw, 4, 2);
  // Per step: 4 J dynamic + 2 x 40 W x 0.25 s busy + 2 x 60 W x 1 s static = 144 J; host 1000 J.
  EXPECT_DOUBLE_EQ(p.chip_energy_j, 100 * 144.0);
  EXPECT_DOUBLE_EQ(p.energy_j, 100 * 1144.0);
  EXPECT_DOUBLE_EQ(p.average_chip_power_w(), 72.0);  // 14400 J / (2 chips x 100 s)
  EXPECT_EQ(tdp_warning(hw, 72.0), "");
  EXPECT_EQ(power_summary(hw, 72.0), "72 W (72% of 100 W TDP)");
  EXPECT_NE(tdp_warning(hw, 120.0).find("exceeds power.tdp 100 W"), std::string::npos);
}

// TDP 100 W, 20 W static, 30 W busy; an update of 1 s, 0.5 s of it forward, 100 J dynamic per chip.
UpdateResult hot_update(double launch_wait_s) {
  UpdateResult u;
  u.breakdown.forward_s = 0.5;
  u.breakdown.launch_wait_s = launch_wait_s;
  u.breakdown.allreduce_exposed_s = 0.5;
  u.breakdown.t_update_s = 1.0;
  u.energy_j = 2 * 100.0;  // two chips
  return u;
}

HardwareSpec capped() {
  HardwareSpec hw;
  hw.power.modelled = true;
  hw.power.tdp_w = 100;
  hw.power.chip_static_w = 20;
  hw.power.chip_busy_w = 30;
  return hw;
}

TEST(PowerModel, AChipOverItsTdpThrottlesUntilItDrawsExactlyTheTdp) {
  // Unthrottled: 100 J + 30 W x 0.5 s + 20 W x 1 s = 135 W. k = (100 - 80 x 0.5) / (50 x 0.5) = 2.4:
  // forward 1.2 s, the update 1.7 s, and 100 + 30 x 1.2 + 20 x 1.7 = 170 J = 100 W x 1.7 s.
  UpdateResult u = hot_update(0);
  apply_power_cap(capped(), 2, u);
  EXPECT_NEAR(u.breakdown.forward_s, 1.2, 1e-12);
  EXPECT_NEAR(u.breakdown.t_update_s, 1.7, 1e-12);
  EXPECT_NEAR(u.breakdown.power_clock_scale, 1 / 2.4, 1e-12);
  EXPECT_DOUBLE_EQ(u.breakdown.allreduce_exposed_s, 0.5);
  // Through the time model: the point's average power is the TDP.
  class Hot : public UpdateModel {
   public:
    const char* fidelity() const override { return "test"; }
    UpdateResult simulate(int64_t, int64_t, std::vector<LayerRecord>*) const override { return hot_update(0); }
  };
  const TimePoint p = evaluate_point(Hot(), StepLaw{10, 0}, capped(), 2, 2);
  EXPECT_NEAR(p.average_chip_power_w(), 100.0, 1e-9);
  EXPECT_EQ(power_summary(capped(), 100.0, p.breakdown.power_clock_scale),
            "100 W (100% of 100 W TDP), clock throttled to 41.7% to stay within it");
}

TEST(PowerModel, LaunchWaitsDrawBusyPowerButDoNotStretch) {
  // 0.1 s of the forward waits for launches: c = 0.4 s. k = (100 + 30 x 0.1 - 80 x 0.6) / (50 x 0.4)
  // = 2.75; the update 1 + 1.75 x 0.4 = 1.7 s, 100 + 30 x (1.1 + 0.1) + 20 x 1.7 = 170 J again.
  UpdateResult u = hot_update(0.1);
  apply_power_cap(capped(), 2, u);
  EXPECT_NEAR(u.breakdown.t_update_s, 1.7, 1e-12);
  EXPECT_NEAR(u.breakdown.forward_s, 1.2, 1e-12);
  EXPECT_NEAR(u.breakdown.power_clock_scale, 1 / 2.75, 1e-12);
}

TEST(PowerModel, AChipWithinItsTdpOrWithoutOneKeepsItsClock) {
  UpdateResult u = hot_update(0);
  u.energy_j = 2 * 60.0;  // 60 + 15 + 20 = 95 W
  apply_power_cap(capped(), 2, u);
  EXPECT_DOUBLE_EQ(u.breakdown.t_update_s, 1.0);
  EXPECT_DOUBLE_EQ(u.breakdown.power_clock_scale, 1.0);
  UpdateResult v = hot_update(0);
  apply_power_cap(HardwareSpec{}, 2, v);  // no power: section
  EXPECT_DOUBLE_EQ(v.breakdown.t_update_s, 1.0);
}

TEST(PowerModel, AbsentPowerSectionIsSaidNotDefaulted) {
  const HardwareSpec hw;
  const TimePoint p = evaluate_point(OneSecondUpdate(), StepLaw{100, 0}, hw, 4, 2);
  EXPECT_DOUBLE_EQ(p.energy_j, 400.0);
  EXPECT_EQ(power_summary(hw, 2.0), "2 W dynamic only (static power not modelled: no power: section)");
  EXPECT_EQ(tdp_warning(hw, 1e9), "");
}

TEST(ChipArea, SumsTheUnitsOfTheDesign) {
  const AreaBreakdown a = chip_area(built());
  EXPECT_NEAR(a.mac_m2, 20e-6, 1e-15);
  EXPECT_NEAR(a.sram_m2, 8e-6, 1e-15);
  EXPECT_NEAR(a.dram_phy_m2, 40e-6, 1e-15);
  EXPECT_NEAR(a.link_phy_m2, 10e-6, 1e-15);
  EXPECT_NEAR(a.total_m2, 100e-6, 1e-15);
}

TEST(ChipCost, YieldModels) {
  CostSpec c;
  c.defects_per_m2 = 1e4;  // 1 per cm2
  c.yield_model = YieldModel::Murphy;
  const double f = 1.0 - std::exp(-1.0);
  EXPECT_NEAR(die_yield(1e-4, c), f * f, 1e-12);  // 1 cm2: AD = 1
  c.yield_model = YieldModel::NegativeBinomial;
  c.clustering = 3;
  EXPECT_NEAR(die_yield(1e-4, c), std::pow(4.0 / 3.0, -3.0), 1e-12);  // 27/64
  EXPECT_DOUBLE_EQ(die_yield(1e-4, CostSpec{}), 1.0);                  // D0 = 0
}

TEST(ChipCost, DiesPerWaferAndChipPrice) {
  // 300 mm, 1 cm2: pi 0.15^2 / 1e-4 - pi 0.3 / sqrt(2e-4) = 706.86 - 66.64 = 640.2
  EXPECT_DOUBLE_EQ(dies_per_wafer(1e-4, 0.3), 640.0);
  EXPECT_DOUBLE_EQ(dies_per_wafer(0.1, 0.3), 0.0);
  const HardwareSpec hw = built();
  const ChipPrice p = chip_price(hw);
  // 100 mm2 = 1 cm2: 640 dies as above
  EXPECT_DOUBLE_EQ(p.dies_per_wafer, 640.0);
  EXPECT_NEAR(p.yield, 1.0 / (1.05 * 1.05), 1e-12);  // (1 + 0.1/2)^-2
  EXPECT_NEAR(p.die_usd, 10000.0 / (640.0 / (1.05 * 1.05)), 1e-9);
  EXPECT_NEAR(p.total_usd, p.die_usd + 160.0 + 100.0, 1e-9);
  EXPECT_NEAR(chip_hour_usd(hw), p.total_usd / 1000.0, 1e-12);
}

}  // namespace kp
