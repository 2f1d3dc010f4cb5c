// `kneepoint import onnx` end to end: the written workload is YAML whose layers read only tensors
// made before them, the training fields are marked placeholders, the summary has one line per
// node, and an unsupported operator exits 2 with the one located error.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "tests/scratch_dir.h"

namespace {

const std::string kDir = std::string(KP_SOURCE_DIR) + "/tests/data/onnx/";

struct CliRun {
  int exit_code = -1;
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

CliRun kneepoint(const std::string& args) {
  const std::string dir = kp::test::process_scratch_dir("onnx_cli");
  const std::string out = dir + "/stdout", err = dir + "/stderr";
  const int status = std::system((std::string(KP_CLI) + " " + args + " > " + out + " 2> " + err).c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Every layer reads "input" or a tensor named by an earlier layer; names are unique.
void expect_well_formed(const YAML::Node& network) {
  std::set<std::string> names = {"input"};
  for (const YAML::Node& l : network) {
    ASSERT_TRUE(l["kind"]) << l;
    if (l["inputs"])
      for (const YAML::Node& in : l["inputs"]) EXPECT_TRUE(names.count(in.as<std::string>())) << l;
    ASSERT_TRUE(l["name"]) << l;
    EXPECT_TRUE(names.insert(l["name"].as<std::string>()).second) << "repeated name: " << l;
  }
}

TEST(OnnxImportCli, WritesAnEditableWorkload) {
  const std::string yaml = kp::test::process_scratch_dir("onnx_cli") + "/resnet50.yaml";
  const CliRun r = kneepoint("import onnx " + kDir + "resnet50.onnx --out " + yaml);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("175 layers, 25557032 parameters"), std::string::npos) << r.out;
  EXPECT_EQ(count(r.out, "\n"), 2 + 175 + 1);  // header, column names, 175 nodes, the total
  const std::string text = slurp(yaml);
  EXPECT_EQ(count(text, "# PLACEHOLDER:"), 5);  // the loss, dataset, optimizer, target, step curve
  const YAML::Node doc = YAML::Load(text);
  EXPECT_EQ(doc["name"].as<std::string>(), "resnet50");
  EXPECT_EQ(doc["classes"].as<int>(), 1000);
  EXPECT_EQ(doc["input"]["channels"].as<int>(), 3);
  EXPECT_EQ(doc["dataset"]["kind"].as<std::string>(), "none");
  EXPECT_EQ(doc["step_curve"]["source"].as<std::string>(), "law");
  ASSERT_EQ(doc["network"].size(), 175u);  // 174 layers (Flatten is no layer) + the loss
  expect_well_formed(doc["network"]);
  EXPECT_EQ(doc["network"][0]["kind"].as<std::string>(), "conv2d");
  EXPECT_FALSE(doc["network"][1]["inputs"]);  // reads the layer before it: no inputs key
}

TEST(OnnxImportCli, TransformerYamlToStandardOutput) {
  const CliRun r = kneepoint("import onnx " + kDir + "transformer_encoder.onnx");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("66944 parameters"), std::string::npos) << r.err;  // the summary goes to stderr
  const YAML::Node doc = YAML::Load(r.out);
  EXPECT_EQ(doc["input"]["sequence"].as<int>(), 16);
  EXPECT_EQ(doc["input"]["features"].as<int>(), 64);
  EXPECT_FALSE(doc["classes"]);  // images only
  expect_well_formed(doc["network"]);
  EXPECT_EQ(doc["network"][0]["kind"].as<std::string>(), "attention");
  EXPECT_EQ(doc["network"][2]["kind"].as<std::string>(), "add");
  EXPECT_EQ(doc["network"][2]["inputs"].size(), 2u);
}

TEST(OnnxImportCli, UnsupportedOperatorExits2WithOneError) {
  const CliRun r = kneepoint("import onnx " + kDir + "unsupported_topk.onnx");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(count(r.err, "error:"), 1) << r.err;
  EXPECT_NE(r.err.find("node 3 \"top3\" (op TopK): operator TopK is not supported"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(line 6 of the summary)"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());  // no workload is written
}

}  // namespace
