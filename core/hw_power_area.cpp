// The hardware file's optional `power:` and `area:` sections and its `cost:` section (rental or
// build). Each bound below is a plausibility limit that keeps the arithmetic finite.
#include "core/config_map.h"
#include "core/hw_spec.h"
#include "core/limits.h"

namespace kp {
namespace {

constexpr double kMaxPowerW = 1e5;          // one chip or host
constexpr double kMaxUnitAreaM2 = 1e-3;     // 1000 mm2: no single unit is larger
constexpr double kMaxDieAreaM2 = 1e-2;      // 100 cm2
constexpr double kMaxWaferUsd = 1e6;
constexpr double kMaxPartUsd = 1e6;
constexpr double kSecondsPerYear = 365.25 * 86400.0;

}  // namespace

void parse_power(ConfigMap& root, HardwareSpec& hw) {
  if (!root.has("power")) return;
  ConfigMap p = root.map("power");
  hw.power.modelled = true;
  hw.power.tdp_w = p.quantity_or("tdp", Dim::Watts, 1e-3, kMaxPowerW, 0.0);
  hw.power.chip_static_w = p.quantity_nonneg_or("chip_static", Dim::Watts, kMaxPowerW, 0.0);
  hw.power.chip_busy_w = p.quantity_nonneg_or("chip_busy", Dim::Watts, kMaxPowerW, 0.0);
  hw.power.link_static_w = p.quantity_nonneg_or("link_static", Dim::Watts, kMaxPowerW, 0.0);
  hw.power.host_static_w = p.quantity_nonneg_or("host_static", Dim::Watts, kMaxPowerW, 0.0);
  if (hw.power.tdp_w > 0 && hw.power.chip_static_w + hw.power.chip_busy_w >= hw.power.tdp_w)
    p.error("chip_static", "expected chip_static + chip_busy below power.tdp (" +
                               format_quantity(hw.power.tdp_w, Dim::Watts) + "): the MACs need some of the budget");
  p.check_unknown();
}

void parse_area(ConfigMap& root, HardwareSpec& hw) {
  if (!root.has("area")) return;
  ConfigMap a = root.map("area");
  AreaSpec& s = hw.area;
  s.modelled = true;
  s.process = a.text_or("process", "");
  s.mac_m2 = a.quantity("mac", Dim::Area, 1e-15, kMaxUnitAreaM2);
  s.vector_lane_m2 = a.quantity_nonneg_or("vector_lane", Dim::Area, kMaxUnitAreaM2, 0.0);
  s.sram_m2_per_mib = a.quantity("sram_per_mib", Dim::Area, 1e-12, kMaxUnitAreaM2);
  s.dram_phy_m2 = a.quantity_nonneg_or("dram_phy", Dim::Area, kMaxUnitAreaM2, 0.0);
  s.link_phy_m2 = a.quantity_nonneg_or("link_phy", Dim::Area, kMaxUnitAreaM2, 0.0);
  s.other_m2 = a.quantity_nonneg_or("other", Dim::Area, kMaxDieAreaM2, 0.0);
  s.max_die_m2 = a.quantity_or("max_die", Dim::Area, 1e-8, kMaxDieAreaM2, s.max_die_m2);
  a.check_unknown();
}

void parse_cost(ConfigMap& root, HardwareSpec& hw) {
  ConfigMap c = root.map("cost");
  CostSpec& s = hw.cost;
  // Both models may be written down; `model:` picks the one the study charges (a derived file or a
  // sweep flips it without deleting the other).
  s.model = c.choice_or("model", {"rental", "build"}, 0) == 0 ? CostModel::Rental : CostModel::Build;
  s.per_chip_hour_usd = c.quantity_nonneg_or("per_chip_hour", Dim::Dollars, limits::kMaxChipHourUsd, 0.0);
  // Electricity is charged in both models when given (a rental price usually includes it: then 0).
  s.electricity_usd_per_j = c.quantity_nonneg_or("electricity_per_kwh", Dim::Dollars, 100.0, 0.0) / 3.6e6;
  if (c.has("build")) {
    ConfigMap b = c.map("build");
    s.wafer_usd = b.quantity("wafer", Dim::Dollars, 1.0, kMaxWaferUsd);
    s.wafer_diameter_m = b.number_or("wafer_diameter_mm", 50, 450, 300) * 1e-3;
    s.defects_per_m2 = b.number("defects_per_cm2", 0.0, 100.0) * 1e4;
    s.yield_model = b.choice_or("yield_model", {"negative_binomial", "murphy"}, 0) == 0 ? YieldModel::NegativeBinomial
                                                                                         : YieldModel::Murphy;
    s.clustering = b.number_or("clustering", 0.1, 100.0, 3.0);
    s.dram_usd_per_byte = b.quantity_nonneg_or("dram_per_gb", Dim::Dollars, kMaxPartUsd, 0.0) / 1e9;
    s.packaging_usd = b.quantity_nonneg_or("packaging", Dim::Dollars, kMaxPartUsd, 0.0);
    s.lifetime_s = b.number("lifetime_years", 0.1, 50.0) * kSecondsPerYear;
    b.check_unknown();
  }
  if (s.model == CostModel::Rental) {
    hw.cost_per_chip_hour_usd = s.per_chip_hour_usd;
  } else {
    if (!c.has("build")) c.error("model", "model: build needs a cost.build section (wafer, defects_per_cm2, lifetime_years)");
    else if (!hw.area.modelled) c.error("model", "model: build needs an `area:` section (die area from the design)");
  }
  c.check_unknown();
}

}  // namespace kp
