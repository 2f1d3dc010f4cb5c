// Every kind of bad input gets one clear message with file:line:col and the dotted key.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "core/config_doc.h"
#include "core/config_error.h"
#include "core/hw_spec.h"
#include "core/workload_spec.h"
#include "tests/core/config_fixture.h"

namespace kp {
namespace {

using test::replace_line;
using test::write_temp;
const char* const kHardware = test::kMinimalHardware;

// The formatted error of parsing `text` as hardware, with the temp path replaced by "hw.yaml".
std::string hw_error(const std::string& text) {
  const std::string path = write_temp(text, "hw.yaml");
  try {
    parse_hardware(ConfigDoc::load(path));
  } catch (const ConfigError& e) {
    std::string msg = e.what();
    for (size_t p; (p = msg.find(path)) != std::string::npos;) msg.replace(p, path.size(), "hw.yaml");
    return msg;
  }
  return "no error";
}

std::string hw_line(int line, const std::string& with) { return hw_error(replace_line(kHardware, line, with)); }

}  // namespace

TEST(ConfigErrors, ValidFileParses) {
  EXPECT_EQ(hw_error(kHardware), "no error");
  const HardwareSpec hw = parse_hardware(ConfigDoc::load(write_temp(kHardware, "ok.yaml")));
  EXPECT_EQ(hw.array.rows, 4);
  EXPECT_DOUBLE_EQ(hw.interconnect.link.latency_s, 1e-6);
}

TEST(ConfigErrors, BareNumberWithoutUnit) {
  EXPECT_EQ(hw_line(3, "  clock: 1400"),
            "hw.yaml:3:10: error: chip.clock: expected a frequency with a unit (Hz, kHz, MHz, GHz), got \"1400\"");
}

TEST(ConfigErrors, UnitTypo) {
  EXPECT_EQ(hw_line(3, "  clock: 1.4 Ghz"),
            "hw.yaml:3:10: error: chip.clock: unknown unit \"Ghz\": expected a frequency with a unit (Hz, kHz, "
            "MHz, GHz), got \"1.4 Ghz\"");
}

TEST(ConfigErrors, WrongDimensionUnit) {
  EXPECT_EQ(hw_line(14, "  link: {bandwidth: 10 GB, latency: 1 us}"),
            "hw.yaml:14:21: error: interconnect.link.bandwidth: unknown unit \"GB\": expected a bandwidth with a "
            "unit (B/s, KB/s, MB/s, GB/s, GiB/s, TB/s, Mb/s, Gb/s, Gbit/s, Tb/s), got \"10 GB\"");
}

TEST(ConfigErrors, NegativeSize) {
  EXPECT_EQ(hw_line(8, "    sram: {capacity: -1 MiB, bandwidth: 100 GB/s}"),
            "hw.yaml:8:22: error: chip.memory.sram.capacity: expected a size in [1 B, 1 TiB], got \"-1 MiB\"");
}

TEST(ConfigErrors, ZeroBandwidth) {
  EXPECT_EQ(hw_line(14, "  link: {bandwidth: 0 GB/s, latency: 1 us}"),
            "hw.yaml:14:21: error: interconnect.link.bandwidth: expected a bandwidth in [1 MB/s, 10000 TB/s], got \"0 GB/s\"");
}

TEST(ConfigErrors, NegativeLatency) {
  EXPECT_EQ(hw_line(14, "  link: {bandwidth: 1 GB/s, latency: -1 us}"),
            "hw.yaml:14:38: error: interconnect.link.latency: expected a time in [0, 10 s], got \"-1 us\"");
}

TEST(ConfigErrors, ZeroIntegerSize) {
  EXPECT_EQ(hw_line(5, "    array: {rows: 0, cols: 4, dataflow: ws}"),
            "hw.yaml:5:19: error: chip.compute.array.rows: expected an integer in [1, 2^16 (65536)], got \"0\"");
}

TEST(ConfigErrors, WrongTypeNumberForInteger) {
  EXPECT_EQ(hw_line(5, "    array: {rows: 4.5, cols: 4, dataflow: ws}"),
            "hw.yaml:5:19: error: chip.compute.array.rows: expected an integer in [1, 2^16 (65536)], got \"4.5\"");
}

TEST(ConfigErrors, WrongTypeMapForScalar) {
  EXPECT_EQ(hw_line(3, "  clock: {value: 1}"),
            "hw.yaml:3:10: error: chip.clock: expected a single value, got a map");
}

TEST(ConfigErrors, WrongTypeScalarForMap) {
  EXPECT_EQ(hw_line(6, "    vector: 8"), "hw.yaml:6:13: error: chip.compute.vector: expected a map");
}

TEST(ConfigErrors, UnknownKeyListsKnownOnes) {
  EXPECT_EQ(hw_line(6, "    vector: {lanes: 8, lane: 4}"),
            "hw.yaml:6:24: error: chip.compute.vector.lane: unknown key (known here: count, kind, lanes)");
}

TEST(ConfigErrors, TopLevelTypoIsNotIgnored) {
  EXPECT_EQ(hw_line(16, "cost: {per_chip_hour: 1 USD}\ncots: 1"),
            "hw.yaml:17:1: error: cots: unknown key (known here: chip, cost, energy, interconnect, name)");
}

TEST(ConfigErrors, MissingKeyPointsAtParentMap) {
  EXPECT_EQ(hw_line(5, "    array: {cols: 4, dataflow: ws}"),
            "hw.yaml:5:12: error: chip.compute.array.rows: missing required key");
}

TEST(ConfigErrors, MissingSection) {
  std::string text = kHardware;
  text = replace_line(text, 16, "");
  EXPECT_EQ(hw_error(text), "hw.yaml:1:1: error: cost: missing required key (a map)");
}

TEST(ConfigErrors, UnknownEnumListsChoices) {
  EXPECT_EQ(hw_line(5, "    array: {rows: 4, cols: 4, dataflow: xs}"),
            "hw.yaml:5:41: error: chip.compute.array.dataflow: expected one of os, ws, is, got \"xs\"");
}

TEST(ConfigErrors, UnknownComputeKind) {
  EXPECT_EQ(hw_line(6, "    vector: {kind: tensor_core, lanes: 8}"),
            "hw.yaml:6:20: error: chip.compute.vector.kind: unknown compute kind \"tensor_core\" (known: vector_unit)");
}

TEST(ConfigErrors, UnknownTopology) {
  EXPECT_EQ(hw_line(11, "  topology: mesh"),
            "hw.yaml:11:13: error: interconnect.topology: expected one of ring, torus2d, switch, hierarchical, got "
            "\"mesh\"");
}

TEST(ConfigErrors, CollectiveNeedsItsTopology) {
  EXPECT_EQ(hw_line(12, "  collective: torus2d"),
            "hw.yaml:12:15: error: interconnect.collective: the torus2d collective needs topology: torus2d");
}

TEST(ConfigErrors, AllErrorsOfAFileAtOnce) {
  std::string text = replace_line(kHardware, 3, "  clock: 1400");
  text = replace_line(text, 13, "  max_learners: -2");
  const std::string msg = hw_error(text);
  EXPECT_EQ(msg,
            "hw.yaml:3:10: error: chip.clock: expected a frequency with a unit (Hz, kHz, MHz, GHz), got \"1400\"\n"
            "hw.yaml:13:17: error: interconnect.max_learners: expected an integer in [1, 2^24 (16777216)], got \"-2\"");
}

TEST(ConfigErrors, MissingFile) {
  try {
    ConfigDoc::load("/nonexistent/npu.yaml");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/npu.yaml: error: cannot open file (does it exist?)");
  }
}

TEST(ConfigErrors, KeyOfALaterErrorIsLocatedInItsFileThroughBase) {
  const std::string base = write_temp(kHardware, "base.yaml");
  const std::string child = write_temp("base: base.yaml\nname: c\n", "child.yaml");
  // The memory check runs after parsing and knows only the file and the key: its value, line 9 of the base.
  const Diagnostic d = locate_key({child, 0, 0, "chip.memory.dram", "does not fit"});
  EXPECT_EQ(d.format(), base + ":9:11: error: chip.memory.dram: does not fit");
  // Unknown key, positioned diagnostic or a non-YAML origin: unchanged.
  EXPECT_EQ(locate_key({child, 0, 0, "chip.memory.hbm", "m"}).line, 0);
  EXPECT_EQ(locate_key({child, 3, 4, "chip.memory.dram", "m"}).line, 3);
  EXPECT_EQ(locate_key({"--batch", 0, 0, "chip.clock", "m"}).line, 0);
}

TEST(ConfigErrors, MissingBaseFileIsAnErrorAtTheLineThatNamesIt) {
  const std::string child = write_temp("name: c\nbase: nowhere.yaml\n", "child.yaml");
  try {
    ConfigDoc::load(child);
    FAIL();
  } catch (const ConfigError& e) {
    const std::string dir = child.substr(0, child.rfind('/') + 1);
    EXPECT_EQ(std::string(e.what()), child + ":2:7: error: base: cannot open the base file " + dir +
                                         "nowhere.yaml (does it exist?)");
  }
}

TEST(ConfigErrors, YamlSyntaxError) {
  EXPECT_EQ(hw_line(5, "    array: {rows: 4, cols: 4"),
            "hw.yaml:6:11: error: end of map flow not found");
}

TEST(ConfigErrors, BaseFileIsMergedAndErrorsPointAtTheRightFile) {
  const std::string base = write_temp(kHardware, "base.yaml");
  const std::string child = write_temp("base: base.yaml\nchip:\n  clock: 2 Ghz\n", "child.yaml");
  try {
    parse_hardware(ConfigDoc::load(child));
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              child + ":3:10: error: chip.clock: unknown unit \"Ghz\": expected a frequency with a unit (Hz, kHz, "
                      "MHz, GHz), got \"2 Ghz\"");
  }
  const std::string good = write_temp("base: base.yaml\nchip:\n  clock: 2 GHz\n", "child2.yaml");
  const HardwareSpec hw = parse_hardware(ConfigDoc::load(good));
  EXPECT_DOUBLE_EQ(hw.clock_hz, 2e9);
  EXPECT_EQ(hw.array.rows, 4);  // kept from the base
  (void)base;
}

TEST(ConfigErrors, BaseCycle) {
  const std::string a = write_temp("base: cyc_b.yaml\nname: a\n", "cyc_a.yaml");
  write_temp("base: cyc_a.yaml\nname: b\n", "cyc_b.yaml");
  try {
    ConfigDoc::load(a);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("base: files include each other in a cycle"), std::string::npos);
  }
}

TEST(ConfigErrors, SetOverrideIsValidatedAndCitesTheArgument) {
  ConfigDoc doc = ConfigDoc::load(write_temp(kHardware, "set.yaml"));
  doc.apply_override("chip.clock=3 Ghz");
  try {
    parse_hardware(doc);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "--set chip.clock=3 Ghz: error: chip.clock: unknown unit \"Ghz\": expected a frequency "
                           "with a unit (Hz, kHz, MHz, GHz), got \"3 Ghz\"");
  }
  ConfigDoc ok = ConfigDoc::load(write_temp(kHardware, "set2.yaml"));
  ok.apply_override("chip.compute.array.rows=128");
  EXPECT_EQ(parse_hardware(ok).array.rows, 128);
}

TEST(ConfigErrors, SetOverrideUnknownKey) {
  ConfigDoc doc = ConfigDoc::load(write_temp(kHardware, "set3.yaml"));
  doc.apply_override("chip.clok=1 GHz");
  try {
    parse_hardware(doc);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "--set chip.clok=1 GHz: error: chip.clok: unknown key (known here: clock, compute, memory)");
  }
  EXPECT_THROW(doc.apply_override("chip.nosuch.x=1"), ConfigError);
  EXPECT_THROW(doc.apply_override("novalue"), ConfigError);
}

// The error parse_workload() gives for `text` written to `name`, with `path` set to where it
// was written; "" if it parsed.
std::string workload_error(const std::string& text, const std::string& name, std::string& path) {
  path = write_temp(text, name);
  try {
    parse_workload(ConfigDoc::load(path));
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(ConfigErrors, WorkloadUnknownLayerKindListsKnown) {
  const std::string text =
      "name: w\ninput: {channels: 1, height: 4, width: 4}\nclasses: 2\nnetwork:\n"
      "  - {kind: flaten}\n"
      "dataset: {kind: none}\noptimizer: {kind: sgd, learning_rate: 0.1}\ntarget: {validation_error: 0.1}\n"
      "step_curve: {source: law, n_inf: 10, alpha: 100}\n";
  std::string path;
  const std::string error = workload_error(text, "w.yaml", path);
  EXPECT_EQ(error, path + ":5:12: error: network[0].kind: unknown layer kind \"flaten\" (known: dense, conv2d, "
                          "conv1d, maxpool, avgpool, global_avgpool, relu, leaky_relu, gelu, silu, swiglu, tanh, "
                          "sigmoid, softmax, dropout, batchnorm, layernorm, rmsnorm, flatten, add, multiply, concat, split, "
                          "reshape, transpose, embedding, attention, lstm, gru, upsample, softmax_cross_entropy, "
                          "sigmoid_cross_entropy, ctc, residual)");
}

TEST(ConfigErrors, WorkloadImpossibleShape) {
  const std::string text =
      "name: w\ninput: {channels: 1, height: 4, width: 4}\nclasses: 2\nnetwork:\n"
      "  - {kind: dense, units: 2, name: fc}\n"
      "dataset: {kind: none}\noptimizer: {kind: sgd, learning_rate: 0.1}\ntarget: {validation_error: 0.1}\n"
      "step_curve: {source: law, n_inf: 10, alpha: 100}\n";
  std::string path;
  const std::string error = workload_error(text, "w2.yaml", path);
  // At the layer itself, not at the network: key.
  EXPECT_EQ(error, path + ":5:5: error: network[0]: layer \"fc\" (dense): input is 1x4x4, a dense layer needs a "
                          "flatten before it");
}

TEST(ConfigErrors, WorkloadMomentumForPlainSgd) {
  const std::string text =
      "name: w\ninput: {channels: 1, height: 4, width: 4}\nclasses: 2\nnetwork:\n"
      "  - {kind: flatten}\n  - {kind: dense, units: 2}\n  - {kind: softmax_cross_entropy}\n"
      "dataset: {kind: none}\noptimizer: {kind: sgd, learning_rate: 0.1, momentum: 0.9}\n"
      "target: {validation_error: 0.1}\nstep_curve: {source: law, n_inf: 10, alpha: 100}\n";
  std::string path;
  const std::string error = workload_error(text, "w3.yaml", path);
  EXPECT_EQ(error, path + ":9:54: error: optimizer.momentum: plain sgd has no momentum; use kind: momentum or "
                          "nesterov, or momentum: 0");
  // momentum: 0 says the same as leaving it out.
  std::string zero = text;
  zero.replace(zero.find("momentum: 0.9"), 13, "momentum: 0");
  EXPECT_EQ(parse_workload(ConfigDoc::load(write_temp(zero, "w4.yaml"))).optimizer.momentum, 0.0);
}

// Interconnect values a collective cannot run with (issue 4).
TEST(ConfigErrors, InterconnectBucketChunksAndLinks) {
  EXPECT_EQ(hw_line(13, "  max_learners: 8\n  bucket: 0 MiB"),
            "hw.yaml:14:11: error: interconnect.bucket: expected a size in [1 B, 1 TiB], got \"0 MiB\"");
  EXPECT_EQ(hw_line(13, "  max_learners: 8\n  chunks: 0"),
            "hw.yaml:14:11: error: interconnect.chunks: expected an integer in [1, 2^16 (65536)], got \"0\"");
  EXPECT_EQ(hw_line(13, "  max_learners: 8\n  links_per_chip: 3"),
            "hw.yaml:14:19: error: interconnect.links_per_chip: expected 1 or 2 on a ring (a ring uses one or both "
            "directions), got 3");
  EXPECT_EQ(hw_line(11, "  topology: hierarchical\n  devices_per_node: 4\n  inter_node: {bandwidth: 0 Gb/s}"),
            "hw.yaml:13:27: error: interconnect.inter_node.bandwidth: expected a bandwidth in [1 MB/s, 10000 TB/s], got \"0 Gb/s\"");  EXPECT_EQ(hw_line(13, "  max_learners: 8\n  first_bucket: 0 MiB"),
            "hw.yaml:14:17: error: interconnect.first_bucket: expected a size in [1 B, 1 TiB], got \"0 MiB\"");
  EXPECT_EQ(hw_line(11, "  topology: hierarchical\n  devices_per_node: 4\n  inter_node: {bandwidth: 1 Gb/s, efficiency: 0}"),
            "hw.yaml:13:47: error: interconnect.inter_node.efficiency: expected a number in [0.01, 1], got \"0\"");
}

// The network's efficiency is its own factor; without one it inherits interconnect.efficiency.
TEST(ConfigErrors, InterNodeEfficiencyDefaultsToTheInterconnects) {
  const std::string base = replace_line(kHardware, 11, "  topology: hierarchical\n  devices_per_node: 4\n  efficiency: 0.4");
  const HardwareSpec inherit = parse_hardware(ConfigDoc::load(write_temp(
      replace_line(base, 15, "  max_learners: 8\n  inter_node: {bandwidth: 8 Gb/s}"), "inherit.yaml")));
  EXPECT_DOUBLE_EQ(inherit.interconnect.inter_node.efficiency, 0.4);
  EXPECT_DOUBLE_EQ(inherit.interconnect.first_bucket_bytes, 1048576.0);  // PyTorch DDP's default
  const HardwareSpec own = parse_hardware(ConfigDoc::load(write_temp(
      replace_line(base, 15, "  max_learners: 8\n  first_bucket: 2 MiB\n  inter_node: {bandwidth: 8 Gb/s, efficiency: 0.5}"),
      "own.yaml")));
  EXPECT_DOUBLE_EQ(own.interconnect.inter_node.efficiency, 0.5);
  EXPECT_DOUBLE_EQ(own.interconnect.efficiency, 0.4);
  EXPECT_DOUBLE_EQ(own.interconnect.first_bucket_bytes, 2.0 * 1048576);
}

// interconnect.overlap (issue 35): absent = the collective takes nothing; the units it holds
// leave at least one of array.count to the compute; a misspelt key is an error.
TEST(ConfigErrors, InterconnectOverlap) {
  const HardwareSpec none = parse_hardware(ConfigDoc::load(write_temp(kHardware, "none.yaml")));
  EXPECT_EQ(none.interconnect.overlap.units, 0);
  EXPECT_EQ(none.interconnect.overlap.dram_bytes_per_byte, 0.0);
  const std::string four = replace_line(kHardware, 5, "    array: {rows: 4, cols: 4, count: 4, dataflow: ws}");
  const HardwareSpec hw = parse_hardware(ConfigDoc::load(write_temp(
      replace_line(four, 13, "  max_learners: 8\n  overlap: {units: 3, dram_bytes_per_byte: 2.5}"), "overlap.yaml")));
  EXPECT_EQ(hw.interconnect.overlap.units, 3);
  EXPECT_DOUBLE_EQ(hw.interconnect.overlap.dram_bytes_per_byte, 2.5);
  EXPECT_EQ(hw_error(replace_line(four, 13, "  max_learners: 8\n  overlap: {units: 4}")),
            "hw.yaml:14:20: error: interconnect.overlap.units: expected an integer in [0, 3], got \"4\"");
  EXPECT_EQ(hw_error(replace_line(four, 13, "  max_learners: 8\n  overlap: {unit: 1}")),
            "hw.yaml:14:13: error: interconnect.overlap.unit: unknown key (known here: dram_bytes_per_byte, units)");
  EXPECT_EQ(hw_line(13, "  max_learners: 8\n  overlap: {dram_bytes_per_byte: -1}"),
            "hw.yaml:14:34: error: interconnect.overlap.dram_bytes_per_byte: expected a number in [0, 64], got \"-1\"");
  EXPECT_EQ(hw_line(13, "  max_learners: 8\n  overlp: {units: 1}"),
            "hw.yaml:14:3: error: interconnect.overlp: unknown key (known here: bucket, chunks, collective, "
            "devices_per_node, efficiency, first_bucket, link, links_per_chip, max_learners, overlap, topology)");
}

}  // namespace kp
