// kneepoint validate published: the CSV reader (comments, optional layout columns, relative
// paths), each prediction against the model it runs, the error, and the ratio pairs.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "core/config_error.h"
#include "sim/analytic/update_analytic.h"
#include "tools/study/update_case.h"
#include "tools/validate/published_validation.h"

namespace kp {
namespace {

const std::string kSrc = KP_SOURCE_DIR;

std::string write_csv(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

const char* const kRows =
    "# a comment, then a blank line\n\n"
    "hw,workload,precision,chips,batch_per_chip,samples_per_s,source,tp,pp,zero\n"
    "hw_configs/h100_cluster.yaml,workloads/resnet18_cifar10.yaml,fp32,1,128,1000,\"made up, for the test\",1,1,0\n"
    "hw_configs/h100_cluster.yaml,workloads/resnet18_cifar10.yaml,amp_bf16,1,128,3000,made up,1,1,0\n"
    "hw_configs/h100_cluster.yaml,workloads/resnet18_cifar10.yaml,amp_bf16,8,128,20000,made up,,,\n";

}  // namespace

TEST(PublishedValidation, ReadsRowsWithCommentsAndOptionalColumns) {
  const std::vector<PublishedRow> rows = read_published(write_csv("pub_ok.csv", kRows), kSrc);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].line, 4);
  EXPECT_EQ(rows[0].hw, kSrc + "/hw_configs/h100_cluster.yaml");
  EXPECT_EQ(rows[0].source, "made up, for the test");
  EXPECT_EQ(rows[1].precision, "amp_bf16");
  EXPECT_EQ(rows[2].chips, 8);
  EXPECT_EQ(rows[2].batch_per_chip, 128);
  EXPECT_DOUBLE_EQ(rows[2].samples_per_s, 20000);
}

// Each row is the analytic update at M = chips x batch_per_chip on `chips` learners with the
// row's preset in place of the workload's precision; throughput is M / T_update.
TEST(PublishedValidation, PredictsEachRowWithItsPrecision) {
  const std::vector<PublishedRow> rows = read_published(write_csv("pub_pred.csv", kRows), kSrc);
  const std::vector<PublishedPrediction> pred = predict_published(rows, "analytic");
  ASSERT_EQ(pred.size(), 3u);
  for (size_t i = 0; i < rows.size(); ++i) {
    const Case c = load_update_case(rows[i].hw, rows[i].workload, {"workload.precision=" + rows[i].precision});
    EXPECT_EQ(c.precision.policy.preset, rows[i].precision);
    const int64_t m = rows[i].chips * rows[i].batch_per_chip;
    const double t = AnalyticUpdate(c.hw, c.step, c.precision).simulate(m, rows[i].chips).breakdown.t_update_s;
    EXPECT_DOUBLE_EQ(pred[i].t_update_s, t);
    EXPECT_DOUBLE_EQ(pred[i].samples_per_s, static_cast<double>(m) / t);
    EXPECT_DOUBLE_EQ(pred[i].error_pct, 100.0 * (m / t - rows[i].samples_per_s) / rows[i].samples_per_s);
  }
  // bf16 products at 989.4 TFLOP/s against fp32 at 67 on the same chip: the bf16 step is faster.
  EXPECT_GT(pred[1].samples_per_s, pred[0].samples_per_s);
}

// fp32 x1 vs amp_bf16 x1 differ in precision at one chip count; amp_bf16 x1 vs x8 only in chips;
// fp32 x1 vs amp_bf16 x8 differ in both and are not compared.
TEST(PublishedValidation, RatioPairsShareAWorkload) {
  const std::vector<PublishedRow> rows = read_published(write_csv("pub_pairs.csv", kRows), kSrc);
  const auto pairs = published_ratio_pairs(rows);
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[0], std::make_pair(size_t{0}, size_t{1}));
  EXPECT_EQ(pairs[1], std::make_pair(size_t{1}, size_t{2}));
}

TEST(PublishedValidation, ARowOfTheWrongWidthIsAnErrorAtItsLine) {
  try {
    read_published(write_csv("pub_width.csv", "hw,workload,precision,chips,batch_per_chip,samples_per_s,source\na,b\n"),
                   kSrc);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.diagnostics().at(0).format(),
              ::testing::TempDir() + "pub_width.csv:2:1: error: expected 7 fields (the header's), got 2");
  }
}

}  // namespace kp

namespace kp {

// The shipped copy of the DeepLearningExamples rows: all eight load and run on the shipped DGX
// files, and the 16 pairs that share ResNet-50 are compared.
TEST(PublishedValidation, TheResNet50RowsRun) {
  const std::vector<PublishedRow> rows = read_published(kSrc + "/tests/data/published/resnet50_dle.csv", kSrc);
  ASSERT_EQ(rows.size(), 8u);
  for (const PublishedPrediction& p : predict_published(rows, "analytic")) EXPECT_GT(p.samples_per_s, 0);
  EXPECT_EQ(published_ratio_pairs(rows).size(), 16u);
}

}  // namespace kp

namespace kp {

// A published large-model run with its layout: the row predicts what simulate --layout does.
TEST(PublishedValidation, LayoutColumnsTimeTheRunUnderItsLayout) {
  const std::string csv =
      "hw,workload,precision,chips,batch_per_chip,samples_per_s,source,tp,pp,micro_batch,recompute,zero\n"
      "hw_configs/h100_cluster.yaml,workloads/gpt2_medium.yaml,amp_bf16,16,8,100,made up,2,2,2,selective,1\n"
      "hw_configs/h100_cluster.yaml,workloads/gpt2_medium.yaml,amp_bf16,16,8,100,made up,,,,,\n";
  const std::vector<PublishedRow> rows = read_published(write_csv("pub_layout.csv", csv), kSrc);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_TRUE(rows[0].has_layout);
  EXPECT_EQ(rows[0].layout.text(), "dp=0,tp=2,pp=2,zero=1,recompute=selective,micro_batch=2");
  EXPECT_FALSE(rows[1].has_layout);
  const std::vector<PublishedPrediction> pred = predict_published(rows, "analytic");
  const Case c = load_update_case(kSrc + "/hw_configs/h100_cluster.yaml", kSrc + "/workloads/gpt2_medium.yaml",
                                  {"workload.precision=amp_bf16"});
  LayoutChoice l = parse_layout_text("tp=2,pp=2,micro_batch=2,recompute=selective,zero=1", "test");
  EXPECT_DOUBLE_EQ(pred[0].t_update_s, make_update_model(c, "analytic", &l)->simulate(128, 16).breakdown.t_update_s);
  EXPECT_DOUBLE_EQ(pred[1].t_update_s, make_update_model(c, "analytic")->simulate(128, 16).breakdown.t_update_s);
  EXPECT_NE(pred[0].t_update_s, pred[1].t_update_s);
  // A layout that does not divide the chips is an error at its first field.
  const std::string bad = "hw,workload,precision,chips,batch_per_chip,samples_per_s,source,tp\n"
                          "hw_configs/h100_cluster.yaml,workloads/gpt2_medium.yaml,amp_bf16,4,8,100,made up,8\n";
  try {
    predict_published(read_published(write_csv("pub_layout_bad.csv", bad), kSrc), "analytic");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(":2:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not a multiple of tp x pp = 8"), std::string::npos) << e.what();
  }
}

}  // namespace kp
