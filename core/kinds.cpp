#include "core/kinds.h"

#include <stdexcept>

#include "core/config_map.h"
#include "core/precision.h"
#include "core/network_parse.h"

namespace kp {

const KindTable& dataflow_kinds() {
  static const KindTable t = {{"os", "output stationary: each PE keeps one output"},
                              {"ws", "weight stationary: each PE keeps one weight"},
                              {"is", "input stationary: each PE keeps one input"}};
  return t;
}

const KindTable& dram_kinds() {
  static const KindTable t = {
      {"lpddr4", "off-chip memory: capacity, bandwidth, latency, channels"},
      {"lpddr5", "off-chip memory: capacity, bandwidth, latency, channels"},
      {"ddr4", "off-chip memory: capacity, bandwidth, latency, channels"},
      {"gddr6", "off-chip memory: capacity, bandwidth, latency, channels"},
      {"hbm2", "off-chip memory: capacity, bandwidth, latency, channels"},
      {"hbm2e", "off-chip memory: capacity, bandwidth, latency, channels"},
      {"hbm3", "off-chip memory: capacity, bandwidth, latency, channels"}};
  return t;
}

const KindTable& topology_kinds() {
  static const KindTable t = {{"ring", "P chips on a bidirectional ring"},
                              {"torus2d", "sqrt(P) x sqrt(P) wrap-around mesh"},
                              {"switch", "every chip one link from a non-blocking switch"},
                              {"hierarchical", "devices_per_node on an intra-node fabric, nodes on a network"}};
  return t;
}

const KindTable& collective_kinds() {
  static const KindTable t = {
      {"ring", "ring all-reduce: 2(P-1) steps of D/P bytes"},
      {"double_binary_tree", "two pipelined binary trees (NCCL)"},
      {"halving_doubling", "recursive halving reduce-scatter + doubling all-gather"},
      {"torus2d", "ring all-reduce along X, then along Y"},
      {"hierarchical", "reduce-scatter in node, all-reduce across, all-gather in node"}};
  return t;
}

const KindTable& array_kinds() {
  static const KindTable t = {{"systolic_array", "R x C MAC array, dataflow os|ws|is (SCALE-Sim v2 timing)"}};
  return t;
}

const KindTable& vector_kinds() {
  static const KindTable t = {{"vector_unit", "SIMD lanes for elementwise work and the optimizer"}};
  return t;
}

const KindTable& step_curve_kinds() {
  static const KindTable t = {{"law", "N(M) = n_inf + alpha/M"},
                              {"file", "CSV batch,steps; the law is fitted to it"},
                              {"measure", "measured by the reference trainer, cached as CSV"}};
  return t;
}

const KindTable& dataset_kinds() {
  static const KindTable t = {{"fashion_mnist", "IDX files from Debian's dataset-fashion-mnist"},
                              {"synthetic", "a small generated dataset (tests)"},
                              {"none", "not trainable here (curve from a file or a law)"}};
  return t;
}

int parse_kind(ConfigMap& m, const std::string& key, const KindTable& table) {
  if (key_log()) {
    std::string names;
    for (const KindEntry& k : table) names += (names.empty() ? "" : ", ") + std::string(k.name);
    m.describe(key, "one of " + names, true);
  }
  const KeyLogPause pause;
  if (!m.has(key) || !m.node()[key].IsScalar()) {
    m.text(key);  // records "missing required key" or "expected a single value" as ConfigMap does
    return 0;
  }
  const std::string value = m.text(key);
  std::string known;
  for (size_t i = 0; i < table.size(); ++i) {
    if (value == table[i].name) return static_cast<int>(i);
    known += (i ? ", " : "") + std::string(table[i].name);
  }
  m.error(key, "expected one of " + known + ", got \"" + value + "\"");
  return 0;
}

const char* kind_name(const KindTable& table, int index, const char* what) {
  if (index < 0 || static_cast<size_t>(index) >= table.size())
    throw std::logic_error(std::string("unknown ") + what + " value " + std::to_string(index));
  return table[static_cast<size_t>(index)].name;
}

std::vector<KindInfo> all_kinds() {
  std::vector<KindInfo> out;
  for (const auto& e : layer_registry().entries()) out.push_back({"layer", e.kind, e.description});
  const std::pair<const char*, const KindTable*> areas[] = {
      {"compute", &array_kinds()},        {"compute", &vector_kinds()},     {"dataflow", &dataflow_kinds()},
      {"dram", &dram_kinds()},            {"topology", &topology_kinds()},  {"collective", &collective_kinds()},
      {"step_curve", &step_curve_kinds()}, {"dataset", &dataset_kinds()}};
  for (const auto& a : areas)
    for (const KindEntry& k : *a.second) out.push_back({a.first, k.name, k.description});
  // Data types (chip.compute.array.peak keys, precision map values) and precision presets.
  for (int i = 0; i < kDataTypes; ++i) {
    const auto t = static_cast<DataType>(i);
    out.push_back({"data_type", data_type_name(t),
                   "bytes per element: " + std::to_string(storage_bytes(t)) +
                       (is_storage_type(t) ? "" : " (stored as fp32; products only)")});
  }
  for (const char* name : {"fp32", "tf32", "amp_fp16", "amp_bf16", "fp8"}) {
    PrecisionPolicy p;
    precision_preset(name, p);
    out.push_back({"precision", name,
                   std::string("products ") + data_type_name(p.matmul) + ", activations " +
                       data_type_name(p.elementwise) + ", master weights and state " + data_type_name(p.master) +
                       ", gradients " + data_type_name(p.gradients)});
  }
  return out;
}

}  // namespace kp
