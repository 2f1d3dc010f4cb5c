// A bad graph is one located error naming both ends: a cycle (a reference to a later layer), a
// dangling input, an output nobody reads, a shape mismatch, heads that do not divide d_model.
#include <gtest/gtest.h>

#include <string>

#include "core/config_doc.h"
#include "core/workload_spec.h"

namespace kp {
namespace {

const char* kTail =
    "dataset: {kind: none, train_size: 10}\n"
    "optimizer: {kind: sgd, learning_rate: 0.1}\n"
    "target: {validation_loss: 1.0}\n"
    "step_curve: {source: law, n_inf: 1, alpha: 1}\n";

std::string error_of(const std::string& network) {
  const std::string text = "name: g\ninput: {sequence: 8, features: 16}\nnetwork:\n" + network + kTail;
  try {
    parse_workload(ConfigDoc::parse(text, "g.yaml"));
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

TEST(GraphErrors, ReferenceToALaterLayerIsACycleNamingBoth) {
  const std::string e = error_of(
      "  - {kind: dense, units: 16, name: a, inputs: [b]}\n"
      "  - {kind: dense, units: 16, name: b}\n");
  EXPECT_NE(e.find("g.yaml:4:5:"), std::string::npos) << e;
  EXPECT_NE(e.find("\"b\" is defined only later"), std::string::npos) << e;
  EXPECT_NE(e.find("at line 5"), std::string::npos) << e;
}

TEST(GraphErrors, DanglingInputIsNamed) {
  const std::string e = error_of("  - {kind: dense, units: 16, inputs: [nowhere]}\n");
  EXPECT_NE(e.find("g.yaml:4:5:"), std::string::npos) << e;
  EXPECT_NE(e.find("\"nowhere\" is not a tensor"), std::string::npos) << e;
}

TEST(GraphErrors, AnOutputNobodyReadsIsAnError) {
  const std::string e = error_of(
      "  - {kind: dense, units: 16, name: side}\n"
      "  - {kind: dense, units: 4, name: out, inputs: [input]}\n");
  EXPECT_NE(e.find("g.yaml:4:5:"), std::string::npos) << e;
  EXPECT_NE(e.find("\"side\" is never read"), std::string::npos) << e;
  EXPECT_NE(e.find("\"out\""), std::string::npos) << e;
}

TEST(GraphErrors, ShapeMismatchNamesBothInputs) {
  const std::string e = error_of(
      "  - {kind: dense, units: 32, name: wide}\n"
      "  - {kind: dense, units: 16, name: narrow, inputs: [input]}\n"
      "  - {kind: add, inputs: [narrow, wide]}\n");
  EXPECT_NE(e.find("g.yaml:6:5:"), std::string::npos) << e;
  EXPECT_NE(e.find("input \"wide\" is sequence 8 x 32 features but input \"narrow\" is sequence 8 x 16"),
            std::string::npos)
      << e;
}

TEST(GraphErrors, HeadsMustDivideDModel) {
  const std::string e = error_of("  - {kind: attention, heads: 5}\n");
  EXPECT_NE(e.find("g.yaml:4:5:"), std::string::npos) << e;
  EXPECT_NE(e.find("heads 5 do not divide d_model 16"), std::string::npos) << e;
}

TEST(GraphErrors, TransformerShorthandErrorsPointAtIt) {
  const std::string text = std::string("name: t\ntransformer: {layers: 2, d_model: 100, heads: 3, causal: true, ") +
                           "vocab: 10, sequence: 4}\n" + kTail;
  try {
    parse_workload(ConfigDoc::parse(text, "t.yaml"));
    FAIL() << "accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("t.yaml:2:14:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("heads 3 do not divide d_model 100"), std::string::npos) << e.what();
  }
}

TEST(GraphErrors, RepeatedBlocksKeepTheirOwnInputs) {
  // Inside a repeat, inputs naming a layer of the block refer to the same copy.
  const std::string e = error_of(
      "  - repeat: 3\n"
      "    layers:\n"
      "      - {kind: layernorm, name: n}\n"
      "      - {kind: dense, units: 16, name: f}\n"
      "      - {kind: add, name: r, inputs: [f, n]}\n"
      "  - {kind: dense, units: 4}\n");
  EXPECT_EQ(e, "no error");
}

}  // namespace
}  // namespace kp
