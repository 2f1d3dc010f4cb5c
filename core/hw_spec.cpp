#include "core/hw_spec.h"

#include <algorithm>
#include <stdexcept>

#include "core/config_map.h"
#include "core/kinds.h"
#include "core/limits.h"
#include "core/precision.h"

namespace kp {

using namespace limits;

const char* dataflow_name(Dataflow d) { return kind_name(dataflow_kinds(), static_cast<int>(d), "Dataflow"); }
const char* topology_name(Topology t) { return kind_name(topology_kinds(), static_cast<int>(t), "Topology"); }
const char* collective_name(Collective c) { return kind_name(collective_kinds(), static_cast<int>(c), "Collective"); }

namespace {

// A collective touches each byte it moves a few times (reads, writes, staging copies): 64 per
// byte sent is far above any real one and keeps the products finite.
constexpr double kMaxOverlapDramBytesPerByte = 64.0;

LinkSpec parse_link(ConfigMap m, bool network = false, double default_efficiency = 1.0) {
  LinkSpec l;
  l.bandwidth_bytes_per_s = m.quantity("bandwidth", Dim::BytesPerSecond, kMinBandwidth, kMaxBandwidth);
  l.latency_s = m.quantity_nonneg_or("latency", Dim::Seconds, kMaxLatencyS, 0.0);
  l.efficiency = default_efficiency;
  if (network) {
    l.flow_bandwidth_bytes_per_s = m.quantity_or("flow_bandwidth", Dim::BytesPerSecond, kMinBandwidth, kMaxBandwidth, 0.0);
    // The network is its own unit type (e.g. TCP sockets vs the PCIe fabric): its own factor.
    l.efficiency = m.number_or("efficiency", 0.01, 1.0, default_efficiency);
  }
  m.check_unknown();
  return l;
}

// Plausibility: a unit of at least 1 GFLOP/s and at most 10 EFLOP/s per chip.
void parse_peaks(ConfigMap p, TypePeaks& peaks) {
  for (int i = 0; i < kDataTypes; ++i) {
    const char* name = data_type_name(static_cast<DataType>(i));
    p.mark_used(name);  // every type is a known key, listed when one is misspelt
    if (p.has(name)) peaks.flops_per_s[i] = p.quantity(name, Dim::FlopsPerSecond, 1e9, 1e19);
  }
  p.check_unknown();
}

void parse_compute(ConfigMap c, HardwareSpec& hw) {
  ConfigMap a = c.map("array");
  const std::string kind = a.text_or("kind", "systolic_array");
  if (kind != "systolic_array")
    a.error("kind", "unknown compute kind \"" + kind + "\" (known: systolic_array)");
  hw.array.rows = a.integer("rows", 1, kArraySide);
  hw.array.cols = a.integer("cols", 1, kArraySide);
  hw.array.count = a.integer_or("count", 1, kUnitCount, 1);
  hw.array.dataflow = static_cast<Dataflow>(parse_kind(a, "dataflow", dataflow_kinds()));
  if (a.has("bytes_per_element")) {
    a.mark_used("bytes_per_element");
    a.error("bytes_per_element", "no longer a chip property: give the array's rate per data type "
                                 "(peak: {bf16: 989 TFLOP/s, fp32: 67 TFLOP/s, ...}) and the workload's "
                                 "precision: (" + preset_names() + ", or {matmul, elementwise, master, gradients})");
  }
  // Absent: no type is supported, which resolve_precision reports where a workload asks for one.
  if (a.has("peak")) {
    parse_peaks(a.map("peak"), hw.array.peaks);
    if (a.ok() && hw.array.peaks.supported_names().empty())
      a.error("peak", "expected the rate of at least one data type (" + data_type_names() + ")");
  }
  else a.mark_used("peak");  // listed among the known keys of a typo
  a.check_unknown();
  ConfigMap v = c.map("vector");
  const std::string vkind = v.text_or("kind", "vector_unit");
  if (vkind != "vector_unit") v.error("kind", "unknown compute kind \"" + vkind + "\" (known: vector_unit)");
  hw.vector.lanes = v.integer("lanes", 1, kLanes);
  hw.vector.count = v.integer_or("count", 1, kUnitCount, 1);
  v.check_unknown();
  hw.compute_efficiency = c.number_or("efficiency", 0.01, 1.0, 1.0);
  c.check_unknown();
}

void parse_memory(ConfigMap m, HardwareSpec& hw) {
  ConfigMap s = m.map("sram");
  hw.sram.capacity_bytes = s.quantity("capacity", Dim::Bytes, 1.0, kMaxSramBytes);
  hw.sram.bandwidth_bytes_per_s = s.quantity("bandwidth", Dim::BytesPerSecond, kMinBandwidth, kMaxBandwidth);
  hw.sram.banks = s.integer_or("banks", 1, kBanks, 1);
  s.check_unknown();
  ConfigMap d = m.map("dram");
  hw.dram.kind = dram_kinds()[static_cast<size_t>(parse_kind(d, "kind", dram_kinds()))].name;
  hw.dram.capacity_bytes = d.quantity("capacity", Dim::Bytes, 1.0, kMaxDramBytes);
  hw.dram.bandwidth_bytes_per_s = d.quantity("bandwidth", Dim::BytesPerSecond, kMinBandwidth, kMaxBandwidth);
  hw.dram.latency_s = d.quantity_nonneg_or("latency", Dim::Seconds, kMaxLatencyS, 0.0);
  hw.dram.channels = d.integer_or("channels", 1, kBanks, 1);
  d.check_unknown();
  m.check_unknown();
}

void parse_interconnect(ConfigMap n, HardwareSpec& hw) {
  InterconnectSpec& ic = hw.interconnect;
  ic.topology = static_cast<Topology>(parse_kind(n, "topology", topology_kinds()));
  ic.collective = static_cast<Collective>(parse_kind(n, "collective", collective_kinds()));
  ic.max_learners = n.integer("max_learners", 1, kLearners);
  ic.devices_per_node = n.integer_or("devices_per_node", 1, kDevicesPerNode, 1);
  ic.links_per_chip = n.integer_or("links_per_chip", 1, kLinksPerChip, 1);
  ic.efficiency = n.number_or("efficiency", 0.01, 1.0, 1.0);
  ic.bucket_bytes = n.quantity_or("bucket", Dim::Bytes, 1.0, kMaxBucketBytes, ic.bucket_bytes);
  ic.first_bucket_bytes = n.quantity_or("first_bucket", Dim::Bytes, 1.0, kMaxBucketBytes, ic.first_bucket_bytes);
  ic.chunks = n.integer_or("chunks", 1, kChunks, 1);
  if (n.has("overlap")) {
    ConfigMap o = n.map("overlap");
    // At least one unit stays with the compute (hw.array.count is parsed before the interconnect).
    ic.overlap.units = o.integer_or("units", 0, std::max<int64_t>(hw.array.count - 1, 0), 0);
    ic.overlap.dram_bytes_per_byte = o.number_or("dram_bytes_per_byte", 0.0, kMaxOverlapDramBytesPerByte, 0.0);
    o.check_unknown();
  } else {
    n.mark_used("overlap");  // listed among the known keys of a typo
  }
  ic.link = parse_link(n.map("link"));
  if (ic.topology == Topology::Hierarchical) {
    ic.inter_node = parse_link(n.map("inter_node"), true, ic.efficiency);
  } else if (n.has("inter_node")) {
    n.error("inter_node", "only a hierarchical topology has an inter_node network");
  }
  if (ic.topology == Topology::Hierarchical && ic.max_learners % ic.devices_per_node != 0)
    n.error("max_learners", "expected a multiple of devices_per_node (" +
                                std::to_string(ic.devices_per_node) + ")");
  if (ic.collective == Collective::Hierarchical && ic.topology != Topology::Hierarchical)
    n.error("collective", "the hierarchical collective needs topology: hierarchical");
  if (ic.collective == Collective::Torus2d && ic.topology != Topology::Torus2d)
    n.error("collective", "the torus2d collective needs topology: torus2d");
  if ((ic.topology == Topology::Ring || ic.topology == Topology::Torus2d) && ic.links_per_chip > 2)
    n.error("links_per_chip", std::string("expected 1 or 2 on a ") + topology_name(ic.topology) +
                                  " (a ring uses one or both directions), got " + std::to_string(ic.links_per_chip));
  if (ic.topology == Topology::Torus2d) {
    int64_t side = 1;  // at most 2^12 turns: max_learners <= kLearners
    while (side * side < ic.max_learners) ++side;
    if (side * side != ic.max_learners)
      n.error("max_learners", "a torus2d needs a square number of chips, got " +
                                  std::to_string(ic.max_learners));
  }
  n.check_unknown();
}

}  // namespace

HardwareSpec parse_hardware(const ConfigDoc& doc) {
  ConfigMap root(doc, doc.root());
  HardwareSpec hw;
  hw.source_file = doc.path();
  hw.name = root.text("name");
  ConfigMap chip = root.map("chip");
  hw.clock_hz = chip.quantity("clock", Dim::Hertz, kMinClockHz, kMaxClockHz);
  parse_compute(chip.map("compute"), hw);
  parse_memory(chip.map("memory"), hw);
  chip.check_unknown();
  parse_interconnect(root.map("interconnect"), hw);
  ConfigMap e = root.map("energy");
  hw.energy.mac_j = e.quantity_nonneg_or("mac", Dim::Joules, kMaxEnergyJ, 0.0);
  hw.energy.sram_byte_j = e.quantity_nonneg_or("sram_byte", Dim::Joules, kMaxEnergyJ, 0.0);
  hw.energy.dram_byte_j = e.quantity_nonneg_or("dram_byte", Dim::Joules, kMaxEnergyJ, 0.0);
  hw.energy.link_byte_j = e.quantity_nonneg_or("link_byte", Dim::Joules, kMaxEnergyJ, 0.0);
  hw.energy.vector_op_j = e.quantity_nonneg_or("vector_op", Dim::Joules, kMaxEnergyJ, 0.0);
  e.check_unknown();
  parse_power(root, hw);
  parse_area(root, hw);
  parse_cost(root, hw);
  if (root.has("runtime")) hw.runtime = parse_runtime(root.map("runtime"));
  if (root.has("calibration")) {
    const double current[kFittedConstants] = {hw.compute_efficiency, hw.runtime.step_overhead_s, hw.runtime.kernel_launch_s};
    hw.calibration = parse_calibration(root.map("calibration"), doc.path(), current);
  }
  root.finish();
  return hw;
}

}  // namespace kp
