#pragma once
// Runs a SCALE-Sim v2 config over a topology with kneepoint's closed-form fold timing and, in USER
// interface mode, one of two stall models. Contract: in CALC mode every report field equals
// SCALE-Sim v2's COMPUTE_REPORT for the layer. In USER mode Stall Cycles comes from
//   StallSource::FoldEstimate: the per-fold double-buffered estimate (stall_model.h), the analytic
//     twin of the SystemC DMA model (sim/systemc/systolic_sc.h); not SCALE-Sim's mechanics;
//   StallSource::BufferReplay: SCALE-Sim's own read/write buffer mechanics (memory_replay.h).
#include <vector>

#include "sim/fold_timing.h"
#include "sim/scalesim/compute_report.h"
#include "sim/scalesim/scalesim_config.h"
#include "sim/scalesim/stall_model.h"
#include "sim/scalesim/topology.h"

namespace kp {

struct ScaleSimLayerResult {
  FoldTiming timing;
  StallEstimate stalls;  // zero in CALC mode
  ComputeReportRow report;
};

enum class StallSource { FoldEstimate, BufferReplay };

ScaleSimLayerResult simulate_scalesim_layer(const ScaleSimConfig& config, const ScaleSimLayer& layer,
                                            int64_t layer_id, StallSource source = StallSource::FoldEstimate);
// The report of a layer whose stall cycles come from elsewhere (the SystemC model, scalesim_sc.h).
ScaleSimLayerResult scalesim_layer_with_stalls(const ScaleSimConfig& config, const ScaleSimLayer& layer,
                                               int64_t layer_id, const StallEstimate& stalls);
// The DRAM interface of a USER-mode config (1-byte words, as SCALE-Sim).
DramInterfaceSpec scalesim_dram_interface(const ScaleSimConfig& config);
std::vector<ScaleSimLayerResult> simulate_scalesim(const ScaleSimConfig& config,
                                                   const std::vector<ScaleSimLayer>& layers,
                                                   StallSource source = StallSource::FoldEstimate);

}  // namespace kp
