#include "sim/scalesim/scalesim_run.h"

#include <algorithm>

#include "sim/scalesim/memory_replay.h"

namespace kp {
namespace {

// SCALE-Sim's report averages per-fold ratios (compute/systolic_compute_*.py: column folds outer,
// row folds inner, float sum then divide). The closed form in fold_timing() is the same number up
// to rounding; repeating SCALE-Sim's arithmetic here makes COMPUTE_REPORT.csv byte-identical.
void scalesim_fold_averages(const ScaleSimConfig& cfg, const GemmShape& gemm, const FoldTiming& ft,
                            double& mapping_eff, double& compute_util) {
  const FoldMapping map = fold_mapping(cfg.dataflow, gemm);
  const int64_t rows = cfg.array_height, cols = cfg.array_width;
  const int64_t window = ft.compute_cycles / ft.folds;  // SCALE-Sim's cycles_this_fold
  const double pes = static_cast<double>(rows * cols);
  double map_sum = 0, util_sum = 0;
  for (int64_t fc = 0; fc < ft.col_folds; ++fc) {
    const int64_t cu = std::min(cols, map.sc - fc * cols);
    for (int64_t fr = 0; fr < ft.row_folds; ++fr) {
      const int64_t used = std::min(rows, map.sr - fr * rows) * cu;
      map_sum += static_cast<double>(used) / pes;
      util_sum += static_cast<double>(used * map.t) / static_cast<double>(rows * cols * window);
    }
  }
  mapping_eff = map_sum / static_cast<double>(ft.folds);
  compute_util = util_sum / static_cast<double>(ft.folds);
}

}  // namespace

DramInterfaceSpec scalesim_dram_interface(const ScaleSimConfig& config) {
  DramInterfaceSpec dram;
  dram.ifmap_sram_words = config.ifmap_sram_kb * 1024;
  dram.filter_sram_words = config.filter_sram_kb * 1024;
  dram.ofmap_sram_words = config.ofmap_sram_kb * 1024;
  dram.bandwidth_words_per_cycle = config.bandwidth_words_per_cycle;
  return dram;
}

ScaleSimLayerResult simulate_scalesim_layer(const ScaleSimConfig& config, const ScaleSimLayer& layer,
                                            int64_t layer_id, StallSource source) {
  StallEstimate stalls;
  if (config.interface_bandwidth == InterfaceBandwidth::User) {
    stalls = source == StallSource::BufferReplay
                 ? replay_scalesim_memory(config, layer)
                 : estimate_dram_stalls(config.dataflow, config.array_height, config.array_width, layer.gemm,
                                        scalesim_dram_interface(config));
  }
  return scalesim_layer_with_stalls(config, layer, layer_id, stalls);
}

ScaleSimLayerResult scalesim_layer_with_stalls(const ScaleSimConfig& config, const ScaleSimLayer& layer,
                                               int64_t layer_id, const StallEstimate& stalls) {
  const int64_t rows = config.array_height, cols = config.array_width;
  ScaleSimLayerResult r;
  r.timing = fold_timing(config.dataflow, rows, cols, layer.gemm);
  r.stalls = stalls;
  const int64_t total = r.timing.total_cycles + r.stalls.stall_cycles;
  const double pes = static_cast<double>(rows) * static_cast<double>(cols);
  r.report.layer_id = layer_id;
  r.report.total_cycles = total;
  r.report.stall_cycles = r.stalls.stall_cycles;
  // SCALE-Sim: (num_compute * 100) / (total_cycles * num_mac_unit)
  r.report.overall_util_pct = static_cast<double>(r.timing.macs) * 100 / (static_cast<double>(total) * pes);
  double mapping_eff = 0, compute_util = 0;
  scalesim_fold_averages(config, layer.gemm, r.timing, mapping_eff, compute_util);
  r.report.mapping_efficiency_pct = mapping_eff * 100;
  r.report.compute_util_pct = compute_util * 100;
  return r;
}

std::vector<ScaleSimLayerResult> simulate_scalesim(const ScaleSimConfig& config,
                                                   const std::vector<ScaleSimLayer>& layers, StallSource source) {
  std::vector<ScaleSimLayerResult> out;
  out.reserve(layers.size());
  for (size_t i = 0; i < layers.size(); ++i) {
    out.push_back(simulate_scalesim_layer(config, layers[i], static_cast<int64_t>(i), source));
  }
  return out;
}

}  // namespace kp
