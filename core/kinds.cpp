#include "core/kinds.h"

#include "core/network_parse.h"

namespace kp {

std::vector<KindInfo> all_kinds() {
  std::vector<KindInfo> out;
  for (const auto& e : layer_registry().entries()) out.push_back({"layer", e.kind, e.description});
  out.push_back({"compute", "systolic_array", "R x C MAC array, dataflow os|ws|is (SCALE-Sim v2 timing)"});
  out.push_back({"compute", "vector_unit", "SIMD lanes for elementwise work and the optimizer"});
  for (const char* k : {"lpddr4", "lpddr5", "ddr4", "gddr6", "hbm2", "hbm2e", "hbm3"})
    out.push_back({"dram", k, "off-chip memory: capacity, bandwidth, latency, channels"});
  out.push_back({"topology", "ring", "P chips on a bidirectional ring"});
  out.push_back({"topology", "torus2d", "sqrt(P) x sqrt(P) wrap-around mesh"});
  out.push_back({"topology", "switch", "every chip one link from a non-blocking switch"});
  out.push_back({"topology", "hierarchical", "devices_per_node on an intra-node fabric, nodes on a network"});
  out.push_back({"collective", "ring", "ring all-reduce: 2(P-1) steps of D/P bytes"});
  out.push_back({"collective", "double_binary_tree", "two pipelined binary trees (NCCL)"});
  out.push_back({"collective", "halving_doubling", "recursive halving reduce-scatter + doubling all-gather"});
  out.push_back({"collective", "torus2d", "ring all-reduce along X, then along Y"});
  out.push_back({"collective", "hierarchical", "reduce-scatter in node, all-reduce across, all-gather in node"});
  out.push_back({"step_curve", "law", "N(M) = n_inf + alpha/M"});
  out.push_back({"step_curve", "file", "CSV batch,steps; the law is fitted to it"});
  out.push_back({"step_curve", "measure", "measured by the reference trainer, cached as CSV"});
  out.push_back({"dataset", "fashion_mnist", "IDX files from Debian's dataset-fashion-mnist"});
  out.push_back({"dataset", "synthetic", "a small generated dataset (tests)"});
  out.push_back({"dataset", "none", "not trainable here (curve from a file or a law)"});
  return out;
}

}  // namespace kp
