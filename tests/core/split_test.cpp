// The split layer: shapes, parameters and lowering on hand-computed cases, and its located errors.
#include <gtest/gtest.h>

#include <string>

#include "core/config_doc.h"
#include "core/lowering.h"
#include "core/workload_spec.h"

namespace kp {
namespace {

const char* kTail =
    "dataset: {kind: none, train_size: 10}\n"
    "optimizer: {kind: sgd, learning_rate: 0.1}\n"
    "target: {validation_loss: 1.0}\n"
    "step_curve: {source: law, n_inf: 1, alpha: 1}\n";

// A gated unit on 8 positions x 16 features: proj widens to 48, split cuts 32 + 16, the first
// piece is projected to 16 and multiplied by the sigmoid of the second.
const char* kGated =
    "  - {kind: dense, units: 48, name: proj}\n"
    "  - {kind: split, name: parts, sizes: [32, 16]}\n"
    "  - {kind: dense, units: 16, name: a, inputs: [parts:0]}\n"
    "  - {kind: sigmoid, name: gate, inputs: [parts:1]}\n"
    "  - {kind: multiply, name: glu, inputs: [a, gate]}\n"
    "  - {kind: dense, units: 4, name: out}\n"
    "  - {kind: softmax_cross_entropy}\n";

WorkloadSpec parse(const std::string& network) {
  const std::string text = "name: s\ninput: {sequence: 8, features: 16}\nnetwork:\n" + network + kTail;
  return parse_workload(ConfigDoc::parse(text, "s.yaml"));
}

std::string error_of(const std::string& network) {
  try {
    parse(network);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

int64_t layer_index(const LoweredStep& s, const std::string& name) {
  for (size_t i = 0; i < s.layer_names.size(); ++i)
    if (s.layer_names[i] == name) return static_cast<int64_t>(i);
  return -1;
}

TEST(Split, PiecesHaveTheirSizesAndTheSplitHasNoParameters) {
  const WorkloadSpec w = parse(kGated);
  const ResolvedNetwork net = resolve_network(w.network);
  // proj 16*48 + 48 = 816, a 32*16 + 16 = 528, out 16*4 + 4 = 68; the split and the rest none.
  EXPECT_EQ(net.params, 816 + 528 + 68);
  const ResolvedLayer& split = net.layers[1];
  EXPECT_EQ(split.params, 0);
  EXPECT_EQ(split.out, (Shape{48, 8, 1, true, 0}));  // the whole input
  EXPECT_EQ(net.layers[2].in, (Shape{32, 8, 1, true, 0}));
  EXPECT_EQ(net.layers[3].in, (Shape{16, 8, 1, true, 0}));
  EXPECT_EQ(net.layers[2].inputs, (std::vector<int64_t>{1}));
  EXPECT_EQ(net.layers[2].ports, (std::vector<int32_t>{0}));
  EXPECT_EQ(net.layers[3].ports, (std::vector<int32_t>{1}));
}

TEST(Split, IsAViewWithNoOpsAndItsReadersGemmsSeeThePieces) {
  const LoweredStep step = lower_training_step(resolve_network(parse(kGated).network));
  const int64_t split = layer_index(step, "parts"), a = layer_index(step, "a");
  ASSERT_GE(split, 0);
  int a_gemms = 0;
  for (const Op& op : step.ops) {
    EXPECT_NE(op.layer, split) << "the split lowered to an op";
    if (op.layer != a || op.kind != OpKind::Gemm) continue;
    ++a_gemms;
    const GemmDims& g = op.gemm;
    if (op.phase == Phase::Forward) {
      EXPECT_EQ(g.m * g.n * g.k, 8 * 16 * 32);  // 8 positions, 32 -> 16
    }
    if (op.phase == Phase::BackwardData) {
      EXPECT_EQ(g.n, 32);  // into the piece's slice
    }
  }
  EXPECT_EQ(a_gemms, 3);
  EXPECT_EQ(step.layers[static_cast<size_t>(split)].saved_elements, 0);
  // MACs per sample: forward 8*(16*48 + 32*16 + 16*4) = 10752, weight gradients the same, data
  // gradients of out and a 8*(16*4 + 32*16) = 4608 (proj reads the network input: none).
  EXPECT_DOUBLE_EQ(step.gemm_macs_per_sample(), 10752.0 * 2 + 4608.0);
}

TEST(Split, APieceReadTwiceSumsOnlyThatPiecesGradient) {
  // parts:0 (8 x 32) feeds a and b: one gradient add of 256 elements; parts:1 has one reader.
  const LoweredStep step = lower_training_step(resolve_network(parse(
      "  - {kind: dense, units: 48, name: proj}\n"
      "  - {kind: split, name: parts, sizes: [32, 16]}\n"
      "  - {kind: dense, units: 16, name: a, inputs: [parts:0]}\n"
      "  - {kind: dense, units: 16, name: b, inputs: [parts:0]}\n"
      "  - {kind: add, name: ab, inputs: [a, b, parts:1]}\n"
      "  - {kind: softmax_cross_entropy}\n").network));
  const int64_t split = layer_index(step, "parts");
  int sums = 0;
  for (const Op& op : step.ops)
    if (op.layer == split) {
      ++sums;
      EXPECT_EQ(op.phase, Phase::BackwardData);
      EXPECT_EQ(op.elements, 8 * 32);
      EXPECT_DOUBLE_EQ(op.ops_per_element, 1.0);
    }
  EXPECT_EQ(sums, 1);
}

TEST(Split, PiecesOfTheNetworkInputNeedNoDataGradient) {
  const LoweredStep step = lower_training_step(resolve_network(parse(
      "  - {kind: split, name: parts, sizes: [4, 12], inputs: [input]}\n"
      "  - {kind: dense, units: 12, name: a, inputs: [parts:0]}\n"
      "  - {kind: add, name: sum, inputs: [a, parts:1]}\n"
      "  - {kind: softmax_cross_entropy}\n").network));
  const int64_t a = layer_index(step, "a");
  for (const Op& op : step.ops)
    if (op.layer == a) {
      EXPECT_NE(op.phase, Phase::BackwardData);
    }
}

TEST(Split, InsideARepeatEachCopyReadsItsOwnPieces) {
  const WorkloadSpec w = parse(
      "  - repeat: 2\n"
      "    layers:\n"
      "      - {kind: split, name: p, sizes: [8, 8]}\n"
      "      - {kind: add, name: s, inputs: [p:0, p:1]}\n"
      "      - {kind: dense, units: 16, name: d}\n"
      "  - {kind: softmax_cross_entropy}\n");
  EXPECT_EQ(w.network.layers[1].inputs, (std::vector<std::string>{"p_1:0", "p_1:1"}));
  EXPECT_EQ(w.network.layers[4].inputs, (std::vector<std::string>{"p_2:0", "p_2:1"}));
  // Each copy: 16 features cut 8 + 8, summed to 8, widened to 16 by d (8*16 + 16).
  EXPECT_EQ(resolve_network(w.network).params, 2 * (8 * 16 + 16));
}

TEST(SplitErrors, SizesMustSumToTheInputsFeatures) {
  const std::string e = error_of("  - {kind: split, name: p, sizes: [8, 4]}\n  - {kind: add, inputs: [p:0, p:1]}\n");
  EXPECT_NE(e.find("s.yaml:4:5:"), std::string::npos) << e;
  EXPECT_NE(e.find("sizes 8 + 4 = 12 but input \"input\" has 16 features"), std::string::npos) << e;
}

TEST(SplitErrors, AnIndexOutOfRangeNamesTheSplit) {
  const std::string e = error_of(
      "  - {kind: split, name: p, sizes: [8, 8]}\n"
      "  - {kind: add, inputs: [p:0, p:2]}\n");
  EXPECT_NE(e.find("s.yaml:5:5:"), std::string::npos) << e;
  EXPECT_NE(e.find("input \"p:2\" is out of range: layer \"p\" (split) at line 4 has the outputs \"p:0\" .. \"p:1\""),
            std::string::npos)
      << e;
}

TEST(SplitErrors, TheBareNameIsNoTensor) {
  const std::string e = error_of("  - {kind: split, name: p, sizes: [8, 8]}\n  - {kind: relu}\n");
  EXPECT_NE(e.find("s.yaml:5:5:"), std::string::npos) << e;
  EXPECT_NE(e.find("which has 2 outputs: read one of \"p:0\" .. \"p:1\" with inputs"), std::string::npos) << e;
}

TEST(SplitErrors, AnIndexOnALayerOfOneOutput) {
  const std::string e = error_of("  - {kind: relu, name: r}\n  - {kind: relu, inputs: [r:0]}\n");
  EXPECT_NE(e.find("s.yaml:5:5:"), std::string::npos) << e;
  EXPECT_NE(e.find("\"r\" has one output"), std::string::npos) << e;
}

TEST(SplitErrors, APieceOfALaterSplitIsACycle) {
  const std::string e = error_of(
      "  - {kind: relu, name: r, inputs: [p:0]}\n"
      "  - {kind: split, name: p, sizes: [8, 8]}\n");
  EXPECT_NE(e.find("s.yaml:4:5:"), std::string::npos) << e;
  EXPECT_NE(e.find("\"p:0\" is defined only later"), std::string::npos) << e;
}

TEST(SplitErrors, AnUnreadPieceIsNamed) {
  const std::string e = error_of(
      "  - {kind: split, name: p, sizes: [8, 8]}\n"
      "  - {kind: relu, inputs: [p:0]}\n");
  EXPECT_NE(e.find("s.yaml:4:5:"), std::string::npos) << e;
  EXPECT_NE(e.find("its output \"p:1\" is never read"), std::string::npos) << e;
}

TEST(SplitErrors, OnePieceAColonInANameAndAMisspeltKey) {
  EXPECT_NE(error_of("  - {kind: split, name: p, sizes: [16]}\n").find("s.yaml:4:35: error: network[0].sizes: "
                                                                    "expected at least two pieces"),
            std::string::npos);
  EXPECT_NE(error_of("  - {kind: relu, name: \"a:1\"}\n").find("expected a name without ':'"), std::string::npos);
  const std::string e = error_of("  - {kind: split, name: p, size: [8, 8]}\n");
  EXPECT_NE(e.find("network[0].sizes: missing required key"), std::string::npos) << e;
  EXPECT_NE(e.find("network[0].size"), std::string::npos) << e;
}

TEST(SplitErrors, ANetworkCannotEndWithASplitNorHideOneInAResidual) {
  EXPECT_NE(error_of("  - {kind: split, name: p, sizes: [8, 8]}\n").find("cannot end with a split"),
            std::string::npos);
  const std::string e = error_of("  - kind: residual\n    body: [{kind: split, sizes: [8, 8]}]\n");
  EXPECT_NE(e.find("a split inside a residual block"), std::string::npos) << e;
}

}  // namespace
}  // namespace kp
