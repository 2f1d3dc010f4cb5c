#pragma once
// `kneepoint scalesim` through the SystemC systolic-array model (systolic_sc.h): a SCALE-Sim v2
// config and topology run as one job in a forked worker (sc_pool.h), so the calling process never
// elaborates. Contract: Total Cycles and Stall Cycles are the SystemC model's (equal to SCALE-Sim's
// in CALC mode, the simulated double-buffered DMA stalls in USER mode); the other report fields and
// the DRAM word counts are the fold formulas' (scalesim_run.h), which the model shares.
#include <vector>

#include "sim/scalesim/scalesim_run.h"

namespace kp {

std::vector<ScaleSimLayerResult> simulate_scalesim_sc(const ScaleSimConfig& config,
                                                      const std::vector<ScaleSimLayer>& layers);

}  // namespace kp
