// SCALE-Sim .cfg reader: every shipped reference config loads; malformed ones fail with positions.
#include "sim/scalesim/scalesim_config.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "core/config_error.h"

namespace kp {
namespace {

const std::string kRef = std::string(KP_SOURCE_DIR) + "/tests/data/scalesim/reference";

const char* const kGood =
    "[general]\n"
    "run_name = t\n"
    "\n"
    "[architecture_presets]\n"
    "ArrayHeight:    8\n"
    "ArrayWidth:     4\n"
    "IfmapSramSzkB:   64\n"
    "FilterSramSzkB:  64\n"
    "OfmapSramSzkB:   64\n"
    "Bandwidth : 10\n"
    "Dataflow : ws\n"
    "\n"
    "[run_presets]\n"
    "InterfaceBandwidth: USER\n";

ScaleSimConfig parse(const std::string& text) {
  std::istringstream in(text);
  return parse_scalesim_config(in, "t.cfg");
}

// The one-line-per-diagnostic message of parsing text, or "" if it parsed.
std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const size_t p = s.find(from);
  EXPECT_NE(p, std::string::npos) << from;
  return s.replace(p, from.size(), to);
}

TEST(ScaleSimConfig, ParsesAllKeys) {
  const ScaleSimConfig c = parse(kGood);
  EXPECT_EQ(c.run_name, "t");
  EXPECT_EQ(c.array_height, 8);
  EXPECT_EQ(c.array_width, 4);
  EXPECT_EQ(c.ifmap_sram_kb, 64);
  EXPECT_EQ(c.bandwidth_words_per_cycle, 10);
  EXPECT_EQ(c.dataflow, Dataflow::WeightStationary);
  EXPECT_EQ(c.interface_bandwidth, InterfaceBandwidth::User);
  EXPECT_EQ(c.filter_offset, 10000000);  // default
}

TEST(ScaleSimConfig, EveryReferenceConfigLoads) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(kRef + "/configs")) {
    const ScaleSimConfig c = read_scalesim_config(e.path().string());
    EXPECT_EQ(c.run_name, e.path().stem().string());
    EXPECT_EQ(c.array_height, c.array_width);
    ++n;
  }
  EXPECT_EQ(n, 8);
}

TEST(ScaleSimConfig, ZeroArraySize) {
  EXPECT_EQ(error_of(replace(kGood, "ArrayHeight:    8", "ArrayHeight:    0")),
            "t.cfg:5:17: error: architecture_presets.ArrayHeight: expected an integer >= 1, got \"0\"");
}

TEST(ScaleSimConfig, BadNumber) {
  EXPECT_EQ(error_of(replace(kGood, "OfmapSramSzkB:   64", "OfmapSramSzkB:   64k")),
            "t.cfg:9:18: error: architecture_presets.OfmapSramSzkB: expected an integer >= 1, got \"64k\"");
}

TEST(ScaleSimConfig, UnknownDataflow) {
  EXPECT_EQ(error_of(replace(kGood, "Dataflow : ws", "Dataflow : rs")),
            "t.cfg:11:12: error: architecture_presets.Dataflow: expected os, ws or is, got \"rs\"");
}

TEST(ScaleSimConfig, UnknownInterfaceMode) {
  EXPECT_EQ(error_of(replace(kGood, "USER", "AUTO")),
            "t.cfg:14:21: error: run_presets.InterfaceBandwidth: expected CALC or USER, got \"AUTO\"");
}

TEST(ScaleSimConfig, MissingKeyPointsAtItsSection) {
  EXPECT_EQ(error_of(replace(kGood, "ArrayWidth:     4\n", "")),
            "t.cfg:4:1: error: architecture_presets.ArrayWidth: missing required key");
}

TEST(ScaleSimConfig, UnknownKeyIsAnError) {
  const std::string msg = error_of(replace(kGood, "Dataflow : ws", "DataFlw : ws"));
  EXPECT_EQ(msg.rfind("t.cfg:11:1: error: architecture_presets.DataFlw: unknown key, expected one of "
                      "ArrayHeight, ArrayWidth",
                      0),
            0u)
      << msg;
}

TEST(ScaleSimConfig, CollectsEveryErrorOfAFile) {
  std::string text = replace(kGood, "ArrayHeight:    8", "ArrayHeight:    -1");
  text = replace(text, "Dataflow : ws", "Dataflow :");
  try {
    parse(text);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    ASSERT_EQ(e.diagnostics().size(), 2u);
    EXPECT_EQ(e.diagnostics()[0].line, 5);
    EXPECT_EQ(e.diagnostics()[1].format(),
              "t.cfg:11:11: error: architecture_presets.Dataflow: expected os, ws or is, got nothing");
  }
}

TEST(ScaleSimConfig, LineWithoutSeparator) {
  EXPECT_EQ(error_of(replace(kGood, "Bandwidth : 10", "Bandwidth 10")),
            "t.cfg:10:1: error: expected \"key: value\" or \"key = value\", got \"Bandwidth 10\"");
}

// SCALE-Sim v2's own example (configs/scale.cfg) carries layout and sparsity keys.
TEST(ScaleSimConfig, AcceptsLaterScaleSimKeysWhenOff) {
  std::string text = kGood;
  text = replace(text, "Dataflow : ws\n",
                 "Dataflow : ws\nOnChipMemoryBanks:   1\nIfmapCustomLayout: False\nIfmapSRAMBankNum: 10\n");
  text += "[sparsity]\nSparsitySupport : false\nSparseRep : ellpack_block\nBlockSize : 8\n";
  EXPECT_EQ(error_of(text), "");
  EXPECT_EQ(error_of(kGood + std::string("[sparsity]\nSparsitySupport : true\n")),
            "t.cfg:16:19: error: sparsity.SparsitySupport: only False is supported (kneepoint does not "
            "model this SCALE-Sim feature), got \"true\"");
}

TEST(ScaleSimConfig, UnknownSection) {
  EXPECT_EQ(error_of(kGood + std::string("[layout]\n")),
            "t.cfg:15:2: error: layout: unknown section, expected one of general, architecture_presets, "
            "run_presets, sparsity");
}

TEST(ScaleSimConfig, MissingFile) {
  try {
    read_scalesim_config("/nonexistent/x.cfg");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/x.cfg: error: cannot open the SCALE-Sim config file");
  }
}

}  // namespace
}  // namespace kp
