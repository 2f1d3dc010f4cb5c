#include "sim/systemc/scalesim_sc.h"

#include <stdexcept>

#include "sim/systemc/sc_pool.h"

namespace kp {

std::vector<ScaleSimLayerResult> simulate_scalesim_sc(const ScaleSimConfig& config,
                                                      const std::vector<ScaleSimLayer>& layers) {
  if (layers.empty()) return {};
  const bool user = config.interface_bandwidth == InterfaceBandwidth::User;
  const DramInterfaceSpec dram = scalesim_dram_interface(config);
  ScJob job;
  job.chip.rows = config.array_height, job.chip.cols = config.array_width, job.chip.arrays = 1;
  job.chip.dataflow = config.dataflow;
  job.chip.ifmap_sram_words = dram.ifmap_sram_words;
  job.chip.filter_sram_words = dram.filter_sram_words;
  job.chip.ofmap_sram_words = dram.ofmap_sram_words;
  job.chip.dram_words_per_cycle = user ? config.bandwidth_words_per_cycle : 0;  // CALC: never stalls
  for (const ScaleSimLayer& l : layers) job.layers.push_back(l.gemm);
  const auto res = run_systolic_sc_pool({job}, 1);
  if (res.size() != 1 || res[0].size() != layers.size())
    throw std::runtime_error("simulate_scalesim_sc: the SystemC worker returned the wrong number of layers");
  std::vector<ScaleSimLayerResult> out;
  out.reserve(layers.size());
  for (size_t i = 0; i < layers.size(); ++i) {
    StallEstimate stalls;
    if (user)  // DRAM words of the same per-fold traffic the SystemC DMA moved
      stalls = estimate_dram_stalls(config.dataflow, config.array_height, config.array_width, layers[i].gemm, dram);
    stalls.stall_cycles = res[0][i].stall_cycles;
    out.push_back(scalesim_layer_with_stalls(config, layers[i], static_cast<int64_t>(i), stalls));
  }
  return out;
}

}  // namespace kp
