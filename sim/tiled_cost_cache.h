#pragma once
// Reuse of tile plans' costs across repeated layer shapes and design points. A study times every
// op of every design; most ops repeat a shape (ResNet-50's bottlenecks) and most swept keys (link
// bandwidth, energy, cost) leave every tile plan as it was, yet planning each op (the tiling
// search of TilePlan::gemm and tile_pipeline) was ~60% of a study's time.
// Contract: cached_tiled_cost returns exactly tile_pipeline(plan, hw.dram) of the plan its
// arguments build; the key holds every input TilePlan and tile_pipeline read (the op's shape and
// a_unique_fraction or elementwise sizes, bytes per element, array speed, array geometry, count and dataflow,
// vector lanes and count, clock, compute efficiency, SRAM capacity and bandwidth, DRAM bandwidth,
// latency and channels), so a hit is bit-identical to recomputing. One cache per thread (no
// locks; study threads each fill their own), cleared when it reaches 2^16 entries.
#include <cstdint>

#include "core/hw_spec.h"
#include "core/lowering.h"
#include "sim/tile_plan.h"

namespace kp {

TiledCost cached_gemm_tiled_cost(const HardwareSpec& hw, const GemmDims& g, double a_unique_fraction,
                                 int64_t bytes_per_element, double out_fraction = 1.0, double array_speed = 1.0);
TiledCost cached_elementwise_tiled_cost(const HardwareSpec& hw, double elements, double ops_per_element,
                                        double tensors_moved, int64_t bytes_per_element);

// On by default; off recomputes every plan and step profile (sim/analytic/step_profile_cache.h):
// the benchmark's "before" and the equality tests.
void set_tiled_cost_cache(bool on);
bool tiled_cost_cache_on();

}  // namespace kp
