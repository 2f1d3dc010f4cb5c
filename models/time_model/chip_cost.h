#pragma once
// What one chip costs to build and what one chip-hour costs. Contract: die_yield() is Murphy's
// ((1 - e^-AD) / AD)^2 (Murphy 1964) or the negative binomial (1 + AD/alpha)^-alpha (Stapper 1983);
// dies_per_wafer() is pi r^2 / A - pi d / sqrt(2A) (Hennessy & Patterson, ch. 1), at least 0;
// chip_hour_usd() is the rental price, or for a build model the chip's price (die / yield + DRAM +
// packaging) spread over its lifetime.
#include <string>

#include "core/hw_spec.h"

namespace kp {

struct ChipPrice {
  double area_m2 = 0, dies_per_wafer = 0, yield = 0;
  double die_usd = 0, dram_usd = 0, packaging_usd = 0, total_usd = 0;
};

double dies_per_wafer(double die_area_m2, double wafer_diameter_m);
double die_yield(double die_area_m2, const CostSpec& cost);
// Why the design's die cannot be made (larger than area.max_die), or "" (also without `area:`).
std::string die_problem(const HardwareSpec& hw);
// Only for a build cost model; throws ConfigError naming the file when no die fits the wafer.
ChipPrice chip_price(const HardwareSpec& hw);
double chip_hour_usd(const HardwareSpec& hw);

}  // namespace kp
