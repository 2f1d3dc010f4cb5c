// The kind tables (core/kinds.h): every hardware kind `kneepoint --list-kinds` lists parses and
// reads back under its own name, the parser's error lists exactly the table's names, and every
// enum's name function walks its table in order.
#include "core/kinds.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/config_doc.h"
#include "core/config_error.h"
#include "core/hw_spec.h"
#include "core/precision.h"
#include "core/workload_spec.h"

namespace kp {
namespace {

// A small valid hardware file with the given array kind, dataflow, DRAM kind and interconnect.
std::string hw_yaml(const std::string& array, const std::string& vec, const std::string& dataflow,
                    const std::string& dram, const std::string& topology, const std::string& collective) {
  std::string y = "name: t\nchip:\n  clock: 1 GHz\n  compute:\n    array:\n      kind: " + array +
                  "\n      rows: 4\n      cols: 4\n      dataflow: " + dataflow + "\n    vector:\n      kind: " + vec +
                  "\n      lanes: 4\n  memory:\n    sram:\n      capacity: 1 MiB\n      bandwidth: 1 GB/s\n"
                  "    dram:\n      kind: " + dram + "\n      capacity: 1 GiB\n      bandwidth: 1 GB/s\n"
                  "interconnect:\n  topology: " + topology + "\n  collective: " + collective +
                  "\n  max_learners: 16\n  link:\n    bandwidth: 1 GB/s\n";
  if (topology == "hierarchical") y += "  devices_per_node: 4\n  inter_node:\n    bandwidth: 1 GB/s\n";
  return y + "energy:\n  mac: 1 pJ\n  sram_byte: 1 pJ\n  dram_byte: 1 pJ\n  link_byte: 1 pJ\n  vector_op: 1 pJ\n"
             "cost:\n  per_chip_hour: 1 USD\n";
}

HardwareSpec parse(const std::string& yaml) { return parse_hardware(ConfigDoc::parse(yaml, "hw.yaml")); }

std::string error_of(const std::string& yaml) {
  try {
    parse(yaml);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(parsed)";
}

std::set<std::string> listed(const std::string& area) {
  std::set<std::string> out;
  for (const KindInfo& k : all_kinds())
    if (k.area == area) out.insert(k.kind);
  return out;
}

TEST(Kinds, EveryListedHardwareKindParses) {
  ASSERT_EQ(listed("dataflow"), (std::set<std::string>{"os", "ws", "is"}));
  for (const std::string& df : listed("dataflow"))
    EXPECT_EQ(dataflow_name(parse(hw_yaml("systolic_array", "vector_unit", df, "hbm2", "ring", "ring")).array.dataflow), df);
  ASSERT_EQ(listed("dram").size(), 7u);
  for (const std::string& dram : listed("dram"))
    EXPECT_EQ(parse(hw_yaml("systolic_array", "vector_unit", "os", dram, "ring", "ring")).dram.kind, dram);
  ASSERT_EQ(listed("topology"), (std::set<std::string>{"ring", "torus2d", "switch", "hierarchical"}));
  for (const std::string& t : listed("topology"))
    EXPECT_EQ(topology_name(parse(hw_yaml("systolic_array", "vector_unit", "os", "hbm2", t, "ring")).interconnect.topology), t);
  ASSERT_EQ(listed("collective").size(), 5u);
  for (const std::string& c : listed("collective")) {
    // torus2d and hierarchical collectives need their own topology; the others run on a switch.
    const std::string topo = listed("topology").count(c) ? c : "switch";
    EXPECT_EQ(collective_name(parse(hw_yaml("systolic_array", "vector_unit", "os", "hbm2", topo, c)).interconnect.collective), c);
  }
  EXPECT_EQ(listed("compute"), (std::set<std::string>{"systolic_array", "vector_unit"}));
  // Every listed data type is a peak key and every listed preset a precision (core/precision.h).
  EXPECT_EQ(listed("data_type"), (std::set<std::string>{"fp32", "tf32", "fp16", "bf16", "fp8", "int8"}));
  for (const std::string& t : listed("data_type")) {
    DataType d;
    EXPECT_TRUE(parse_data_type(t, d)) << t;
  }
  EXPECT_EQ(listed("precision"), (std::set<std::string>{"fp32", "tf32", "amp_fp16", "amp_bf16", "fp8"}));
  for (const std::string& p : listed("precision")) {
    PrecisionPolicy policy;
    EXPECT_TRUE(precision_preset(p, policy)) << p;
  }
}

TEST(Kinds, TheParsersErrorListsTheTable) {
  EXPECT_NE(error_of(hw_yaml("systolic_array", "vector_unit", "os", "hbm9", "ring", "ring"))
                .find("chip.memory.dram.kind: expected one of lpddr4, lpddr5, ddr4, gddr6, hbm2, hbm2e, hbm3, got \"hbm9\""),
            std::string::npos);
  EXPECT_NE(error_of(hw_yaml("systolic_array", "vector_unit", "os", "hbm2", "ring", "allgather"))
                .find("interconnect.collective: expected one of ring, double_binary_tree, halving_doubling, torus2d, "
                      "hierarchical, got \"allgather\""),
            std::string::npos);
  // A map where a kind belongs: one error, not a second "got \"\"".
  const std::string e = error_of(hw_yaml("systolic_array", "vector_unit", "{a: 1}", "hbm2", "ring", "ring"));
  EXPECT_NE(e.find("chip.compute.array.dataflow: expected a single value, got a map"), std::string::npos) << e;
  EXPECT_EQ(e.find("got \"\""), std::string::npos) << e;
}

std::string workload_error(const std::string& assignment) {
  ConfigDoc doc = ConfigDoc::load(std::string(KP_SOURCE_DIR) + "/workloads/fmnist_simple_cnn.yaml");
  doc.apply_override(assignment);
  try {
    parse_workload(doc);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(parsed)";
}

TEST(Kinds, WorkloadSourcesAndDatasetsComeFromTheirTables) {
  EXPECT_EQ(listed("dataset"), (std::set<std::string>{"fashion_mnist", "synthetic", "none"}));
  for (const std::string& d : listed("dataset")) EXPECT_EQ(workload_error("dataset.kind=" + d), "(parsed)") << d;
  EXPECT_NE(workload_error("dataset.kind=mnist").find("expected one of fashion_mnist, synthetic, none, got \"mnist\""),
            std::string::npos);
  EXPECT_EQ(listed("step_curve"), (std::set<std::string>{"law", "file", "measure"}));
  EXPECT_NE(workload_error("step_curve.source=guess").find("expected one of law, file, measure, got \"guess\""),
            std::string::npos);
}

TEST(Kinds, NameFunctionsWalkTheirTablesInEnumOrder) {
  for (size_t i = 0; i < topology_kinds().size(); ++i)
    EXPECT_STREQ(topology_name(static_cast<Topology>(i)), topology_kinds()[i].name);
  for (size_t i = 0; i < collective_kinds().size(); ++i)
    EXPECT_STREQ(collective_name(static_cast<Collective>(i)), collective_kinds()[i].name);
  EXPECT_STREQ(dataflow_name(Dataflow::InputStationary), "is");
  EXPECT_STREQ(collective_name(Collective::Hierarchical), "hierarchical");
  EXPECT_THROW(topology_name(static_cast<Topology>(9)), std::logic_error);
}

}  // namespace
}  // namespace kp
