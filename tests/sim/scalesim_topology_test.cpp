// SCALE-Sim topology reader: shipped AlexNet / ResNet-18 parse; malformed rows fail with positions.
#include "sim/scalesim/topology.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "core/config_error.h"

namespace kp {
namespace {

const std::string kTopo = std::string(KP_SOURCE_DIR) + "/tests/data/scalesim/topologies";
const char* const kHeader =
    "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\n";

std::string error_of(const std::string& text, TopologyFormat format = TopologyFormat::Conv) {
  std::istringstream in(text);
  try {
    parse_scalesim_topology(in, "t.csv", format);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(ScaleSimTopology, OfmapSizeRoundsUp) {
  EXPECT_EQ(scalesim_ofmap_size(32, 5, 1), 28);
  EXPECT_EQ(scalesim_ofmap_size(224, 11, 4), 55);  // ceil(217/4 + 1)
  EXPECT_EQ(scalesim_ofmap_size(224, 7, 2), 110);  // ceil(219/2)
  EXPECT_EQ(scalesim_ofmap_size(56, 1, 2), 29);  // ceil(57/2): SCALE-Sim's rounding
}

TEST(ScaleSimTopology, AlexNetParses) {
  const auto layers = read_scalesim_topology(kTopo + "/alexnet.csv", TopologyFormat::Conv);
  ASSERT_EQ(layers.size(), 5u);
  EXPECT_EQ(layers[0].name, "Conv1");
  EXPECT_EQ(layers[0].gemm.m, 55 * 55);
  EXPECT_EQ(layers[0].gemm.n, 96);
  EXPECT_EQ(layers[0].gemm.k, 11 * 11 * 3);
  EXPECT_EQ(layers[4].name, "Conv5");
  EXPECT_EQ(layers[4].gemm.m, 11 * 11);
  EXPECT_EQ(layers[4].gemm.k, 3 * 3 * 384);
}

TEST(ScaleSimTopology, ResNet18Parses) {
  const auto layers = read_scalesim_topology(kTopo + "/Resnet18.csv", TopologyFormat::Conv);
  ASSERT_EQ(layers.size(), 21u);
  EXPECT_EQ(layers[0].gemm.m, 110 * 110);
  EXPECT_EQ(layers[7].name, "Conv3_s");
  EXPECT_EQ(layers[7].gemm.m, 29 * 29);
  EXPECT_EQ(layers[7].gemm.k, 64);
  EXPECT_EQ(layers[20].name, "FC");
  EXPECT_EQ(layers[20].gemm.m, 1);
  EXPECT_EQ(layers[20].gemm.n, 1000);
  EXPECT_EQ(layers[20].gemm.k, 512);
  EXPECT_EQ(layers[20].line, 22);
}

TEST(ScaleSimTopology, GemmMode) {
  std::istringstream in("Layer, M, N, K,\nfc1, 64, 256, 784,\n");
  const auto layers = parse_scalesim_topology(in, "g.csv", TopologyFormat::Gemm);
  ASSERT_EQ(layers.size(), 1u);
  EXPECT_EQ(layers[0].gemm.m, 64);
  EXPECT_EQ(layers[0].gemm.n, 256);
  EXPECT_EQ(layers[0].gemm.k, 784);
}

TEST(ScaleSimTopology, MissingColumn) {
  EXPECT_EQ(error_of(std::string(kHeader) + "c1,32,32,5,5,1,32,\n"),
            "t.csv:2:18: error: Strides: missing column 8 of 8 (conv topology)");
}

TEST(ScaleSimTopology, BadNumber) {
  EXPECT_EQ(error_of(std::string(kHeader) + "c1,32,3x2,5,5,1,32,1,\n"),
            "t.csv:2:7: error: IFMAP Width: expected an integer >= 1, got \"3x2\"");
}

TEST(ScaleSimTopology, ZeroSize) {
  EXPECT_EQ(error_of(std::string(kHeader) + "c1, 32, 32, 5, 5, 0, 32, 1,\n"),
            "t.csv:2:19: error: Channels: expected an integer >= 1, got \"0\"");
}

TEST(ScaleSimTopology, FilterLargerThanIfmap) {
  EXPECT_EQ(error_of(std::string(kHeader) + "c1,4,32,5,5,1,32,1,\n"),
            "t.csv:2:9: error: Filter Height: filter is larger than the IFMAP (5 > 4)");
}

TEST(ScaleSimTopology, ExtraColumn) {
  EXPECT_EQ(error_of(std::string(kHeader) + "c1,32,32,5,5,1,32,1,7,\n"),
            "t.csv:2:21: error: unexpected column 9: a conv topology has 8 columns, got \"7\"");
}

TEST(ScaleSimTopology, GemmMissingColumnAndErrorsCollected) {
  const std::string msg = error_of("Layer, M, N, K,\na, 1, 2,\nb, 0, 2, 3,\n", TopologyFormat::Gemm);
  EXPECT_EQ(msg,
            "t.csv:2:8: error: K: missing column 4 of 4 (gemm topology)\n"
            "t.csv:3:4: error: M: expected an integer >= 1, got \"0\"");
}

TEST(ScaleSimTopology, EmptyAndMissingFiles) {
  EXPECT_EQ(error_of(""), "t.csv: error: empty topology file (expected a header row)");
  EXPECT_EQ(error_of(kHeader), "t.csv:1:1: error: no layers after the header row");
  try {
    read_scalesim_topology("/nonexistent/t.csv", TopologyFormat::Conv);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/t.csv: error: cannot open the SCALE-Sim topology file");
  }
}

}  // namespace
}  // namespace kp
