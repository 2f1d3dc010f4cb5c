#include "models/step_curve/published_curve.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "core/config_error.h"

namespace kp {
namespace {

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("kp_published_" + std::to_string(::getpid()) + "_" + name)).string();
  std::ofstream(path) << text;
  return path;
}

TEST(PublishedCurve, ReadsRowsAndSelectsOneOptimizerMeasureAndTarget) {
  const std::string path = write_temp("ok.csv",
                                      "# source: test\n"
                                      "batch,steps,target,optimizer,measure,epochs,source\n"
                                      "256,1000,0.75,momentum,schedule,90,a\n"
                                      "1024,400,0.759,lars,to_target,35,b\n"
                                      "1024,500,0.759,lars,to_target,36,b\n"
                                      "4096,200,0.759,lars,to_target,40,b\n"
                                      "4096,300,0.75,lars,to_target,40,c\n");
  const std::vector<PublishedRun> runs = read_published_curve(path);
  std::filesystem::remove(path);
  ASSERT_EQ(runs.size(), 5u);
  EXPECT_EQ(runs[0].measure, PublishedMeasure::schedule);
  EXPECT_EQ(runs[0].line, 3);
  EXPECT_EQ(runs[3].source, "b");
  const std::vector<CurvePoint> lars = select_runs(runs, "lars", PublishedMeasure::to_target, 0.759);
  ASSERT_EQ(lars.size(), 3u);
  const std::vector<CurvePoint> mean = mean_per_batch(lars);
  ASSERT_EQ(mean.size(), 2u);
  EXPECT_EQ(mean[0].batch, 1024);
  EXPECT_EQ(mean[0].steps, 450);  // (400 + 500) / 2
  EXPECT_EQ(mean[1].steps, 200);
  EXPECT_TRUE(select_runs(runs, "lamb", PublishedMeasure::to_target, 0.759).empty());
}

TEST(PublishedCurve, BadRowsAreLocatedAndAllReported) {
  const std::string path = write_temp("bad.csv",
                                      "batch,steps,target,optimizer,measure,source\n"
                                      "256,inf,0.75,momentum,schedule,a\n"
                                      "256,100,1.5,adam,sched,\n");
  try {
    read_published_curve(path);
    ADD_FAILURE() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path + ":2:5: error: steps: expected a step count"), std::string::npos) << what;
    EXPECT_NE(what.find(path + ":3:9: error: target: expected a quality target in (0, 1], got \"1.5\""),
              std::string::npos) << what;
    EXPECT_NE(what.find(":3:13: error: optimizer: expected momentum, lars or lamb, got \"adam\""),
              std::string::npos) << what;
    EXPECT_NE(what.find(":3:18: error: measure: expected to_target or schedule"), std::string::npos) << what;
    EXPECT_NE(what.find(":3:24: error: source: expected a citation key"), std::string::npos) << what;
  }
  std::filesystem::remove(path);
  const std::string no_col = write_temp("nocol.csv", "batch,steps\n256,100\n");
  EXPECT_THROW(read_published_curve(no_col), ConfigError);
  std::filesystem::remove(no_col);
}

// A workload's `step_curve: {source: file}` (read_curve_csv) must not fit optimizers, targets and
// schedules together: the plain reader refuses a published-steps file at its `measure` column.
TEST(PublishedCurve, PlainCurveReaderRefusesAPublishedFile) {
  const std::string path = write_temp("plain.csv",
                                      "batch,steps,target,optimizer,measure,source\n"
                                      "256,1000,0.75,momentum,schedule,a\n");
  try {
    read_curve_csv(path);
    ADD_FAILURE() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":1:30: error: measure: a published-steps file"), std::string::npos)
        << e.what();
  }
  std::filesystem::remove(path);
}

// The shipped file: every row parses; the MLPerf reference runs and Goyal et al.'s two schedules
// are told apart by optimizer, measure and target.
TEST(PublishedCurve, ShippedResNet50FileSeparatesOptimizersAndMeasures) {
  const std::vector<PublishedRun> runs =
      read_published_curve(std::string(KP_SOURCE_DIR) + "/workloads/published/resnet50_imagenet_steps.csv");
  ASSERT_EQ(runs.size(), 110u);
  // 17+10+15+10+10+16+10+10+10 reference runs at 9 batch sizes (rcps_resnet.json).
  const std::vector<CurvePoint> lars = select_runs(runs, "lars", PublishedMeasure::to_target, 0.759);
  EXPECT_EQ(lars.size(), 108u);
  EXPECT_EQ(mean_per_batch(lars).size(), 9u);
  const std::vector<CurvePoint> goyal = select_runs(runs, "momentum", PublishedMeasure::schedule, 0.75);
  ASSERT_EQ(goyal.size(), 2u);
  // 90 epochs of 1,281,167 images at batch 256 and 8192.
  EXPECT_EQ(goyal[0].steps, std::round(90.0 * 1281167 / 256));
  EXPECT_EQ(goyal[1].steps, std::round(90.0 * 1281167 / 8192));
  // Batch 3,264, 35 epochs: round(35 x 1,281,167 / 3,264) = 13,738.
  const std::vector<CurvePoint> at_3264 = select_runs(runs, "lars", PublishedMeasure::to_target, 0.759);
  EXPECT_NE(std::find_if(at_3264.begin(), at_3264.end(),
                         [](const CurvePoint& p) { return p.batch == 3264 && p.steps == 13738; }),
            at_3264.end());
}

}  // namespace
}  // namespace kp
