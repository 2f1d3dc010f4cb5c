#include "sim/scalesim/scalesim_run.h"

namespace kp {

ScaleSimLayerResult simulate_scalesim_layer(const ScaleSimConfig& config, const ScaleSimLayer& layer,
                                            int64_t layer_id) {
  const int64_t rows = config.array_height, cols = config.array_width;
  ScaleSimLayerResult r;
  r.timing = fold_timing(config.dataflow, rows, cols, layer.gemm);
  if (config.interface_bandwidth == InterfaceBandwidth::User) {
    DramInterfaceSpec dram;
    dram.ifmap_sram_words = config.ifmap_sram_kb * 1024;  // 1-byte words, as SCALE-Sim
    dram.filter_sram_words = config.filter_sram_kb * 1024;
    dram.ofmap_sram_words = config.ofmap_sram_kb * 1024;
    dram.bandwidth_words_per_cycle = config.bandwidth_words_per_cycle;
    r.stalls = estimate_dram_stalls(config.dataflow, rows, cols, layer.gemm, dram);
  }
  const int64_t total = r.timing.total_cycles + r.stalls.stall_cycles;
  const double pes = static_cast<double>(rows) * static_cast<double>(cols);
  r.report.layer_id = layer_id;
  r.report.total_cycles = total;
  r.report.stall_cycles = r.stalls.stall_cycles;
  // SCALE-Sim: (num_compute * 100) / (total_cycles * num_mac_unit)
  r.report.overall_util_pct = static_cast<double>(r.timing.macs) * 100 / (static_cast<double>(total) * pes);
  r.report.mapping_efficiency_pct = r.timing.mapping_efficiency * 100;
  r.report.compute_util_pct = r.timing.compute_util * 100;
  return r;
}

std::vector<ScaleSimLayerResult> simulate_scalesim(const ScaleSimConfig& config,
                                                   const std::vector<ScaleSimLayer>& layers) {
  std::vector<ScaleSimLayerResult> out;
  out.reserve(layers.size());
  for (size_t i = 0; i < layers.size(); ++i) {
    out.push_back(simulate_scalesim_layer(config, layers[i], static_cast<int64_t>(i)));
  }
  return out;
}

}  // namespace kp
