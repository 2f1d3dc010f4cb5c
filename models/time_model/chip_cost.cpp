#include "models/time_model/chip_cost.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/config_error.h"
#include "core/units.h"
#include "models/time_model/chip_area.h"

namespace kp {

double dies_per_wafer(double die_area_m2, double wafer_diameter_m) {
  const double r = wafer_diameter_m / 2.0;
  const double n = M_PI * r * r / die_area_m2 - M_PI * wafer_diameter_m / std::sqrt(2.0 * die_area_m2);
  return std::max(0.0, std::floor(n));
}

double die_yield(double die_area_m2, const CostSpec& cost) {
  const double ad = die_area_m2 * cost.defects_per_m2;
  if (ad <= 0) return 1.0;
  if (cost.yield_model == YieldModel::Murphy) {
    const double f = (1.0 - std::exp(-ad)) / ad;
    return f * f;
  }
  return std::pow(1.0 + ad / cost.clustering, -cost.clustering);
}

std::string die_problem(const HardwareSpec& hw) {
  if (!hw.area.modelled) return "";
  const double a = chip_area(hw).total_m2;
  if (a <= hw.area.max_die_m2) return "";
  return "the die (" + format_quantity(a, Dim::Area) + ") exceeds area.max_die (" +
         format_quantity(hw.area.max_die_m2, Dim::Area) + ", the reticle field): it cannot be made in one piece";
}

ChipPrice chip_price(const HardwareSpec& hw) {
  if (hw.cost.model != CostModel::Build) throw std::logic_error("chip_price: not a build cost model");
  ChipPrice p;
  p.area_m2 = chip_area(hw).total_m2;
  if (const std::string why = die_problem(hw); !why.empty()) throw ConfigError(hw.source_file + ": area", why);
  p.dies_per_wafer = dies_per_wafer(p.area_m2, hw.cost.wafer_diameter_m);
  if (p.dies_per_wafer < 1)
    throw ConfigError(hw.source_file + ": area", "the die (" + format_quantity(p.area_m2, Dim::Area) +
                                                     ") does not fit a wafer of " +
                                                     std::to_string(static_cast<int>(hw.cost.wafer_diameter_m * 1e3)) + " mm");
  p.yield = die_yield(p.area_m2, hw.cost);
  p.die_usd = hw.cost.wafer_usd / (p.dies_per_wafer * p.yield);
  p.dram_usd = hw.dram.capacity_bytes * hw.cost.dram_usd_per_byte;
  p.packaging_usd = hw.cost.packaging_usd;
  p.total_usd = p.die_usd + p.dram_usd + p.packaging_usd;
  return p;
}

double chip_hour_usd(const HardwareSpec& hw) {
  if (hw.cost.model == CostModel::Rental) return hw.cost_per_chip_hour_usd;
  return chip_price(hw).total_usd / (hw.cost.lifetime_s / 3600.0);
}

}  // namespace kp
