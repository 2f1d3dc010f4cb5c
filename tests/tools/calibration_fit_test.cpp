// Calibration's least squares (tools/validate/calibration_fit.h): the (L, O) solver and the
// condition index on hand-computed cases, the closed form against the analytic model, and the
// whole fit recovering constants from step times the model itself generated.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tools/study/update_case.h"
#include "tools/validate/calibration_fit.h"
#include "tools/validate/step_terms.h"

namespace kp {
namespace {

const std::string kHw = std::string(KP_SOURCE_DIR) + "/hw_configs/t4_cluster.yaml";
const std::string kWorkload = std::string(KP_SOURCE_DIR) + "/workloads/resnet18_cifar10.yaml";
// The batch sizes of the Pollux one-GPU rows (tests/data/pollux_cifar10/placements.csv).
const std::vector<int64_t> kBatches = {32, 45, 64, 91, 129, 182, 257, 363, 513, 725, 1024};

TEST(CalibrationFit, LaunchAndOverheadExactOnAHandCase) {
  // Generated with L = 1 s, O = 0.5 s:
  //   row 0: base 1,   one kernel of 0.5 s:   1 + (1 - 0.5) + 0.5     = 2.0
  //   row 1: base 2,   one kernel of 3 s:     2 + 0 + 0.5             = 2.5 (not launch-bound)
  //   row 2: base 1.5, 2 runs of a 0.2 s one: 1.5 + 2 (1 - 0.2) + 0.5 = 3.6
  std::vector<RowTerms> rows(3);
  rows[0] = {1.0, {{0.5, 1.0}}};
  rows[1] = {2.0, {{3.0, 1.0}}};
  rows[2] = {1.5, {{0.2, 2.0}}};
  const std::vector<double> y = {2.0, 2.5, 3.6}, w = {1.0, 1.0, 1.0};
  for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(rows[i].step_time(1.0, 0.5), y[i], 1e-15);
  const LaunchOverheadFit f = fit_launch_overhead(rows, y, w);
  EXPECT_NEAR(f.launch_s, 1.0, 1e-12);
  EXPECT_NEAR(f.overhead_s, 0.5, 1e-12);
  EXPECT_NEAR(f.sse, 0.0, 1e-20);
  EXPECT_DOUBLE_EQ(rows[2].launch_bound_runs(1.0), 2.0);
  EXPECT_DOUBLE_EQ(rows[1].launch_bound_runs(1.0), 0.0);
}

TEST(CalibrationFit, OverheadStaysNonNegative) {
  // Measured below base everywhere: the best O >= 0 is 0, and no kernel is short enough for L to
  // help (it only adds time), so L = 0; sse = 0.1^2 + 0.2^2.
  std::vector<RowTerms> rows(2);
  rows[0] = {1.0, {{0.5, 1.0}}};
  rows[1] = {2.0, {{0.5, 1.0}}};
  const LaunchOverheadFit f = fit_launch_overhead(rows, {0.9, 1.8}, {1.0, 1.0});
  EXPECT_EQ(f.overhead_s, 0.0);
  EXPECT_EQ(f.launch_s, 0.0);
  EXPECT_NEAR(f.sse, 0.05, 1e-15);
}

TEST(CalibrationFit, ConditionIndexOfHandMatrices) {
  EXPECT_NEAR(condition_index({{1, 0}, {0, 3}}), 1.0, 1e-12);  // orthogonal columns
  // Unit columns (1, 0) and (1, 1)/sqrt 2: J^T J = [[1, c], [c, 1]], c = 1/sqrt 2, eigenvalues
  // 1 +- c, so the index is sqrt((1 + c) / (1 - c)) = 1 + sqrt 2.
  EXPECT_NEAR(condition_index({{1, 0}, {1, 1}}), 1 + std::sqrt(2.0), 1e-12);
  EXPECT_TRUE(std::isinf(condition_index({{1, 2, 3}, {2, 4, 6}})));  // dependent
  EXPECT_TRUE(std::isinf(condition_index({{1, 1}, {0, 0}})));        // a constant without effect
}

TEST(StepTerms, ClosedFormEqualsTheAnalyticModel) {
  const Case c = load_update_case(kHw, kWorkload);
  const StepTerms terms(c, {32, 1024});
  for (double e : {0.3, 0.7})
    for (double launch : {3.8e-6, 200e-6}) {
      const std::vector<RowTerms> rows = terms.at(e);
      const HardwareSpec hw = terms.with(e, 0.012, launch);
      for (size_t i = 0; i < 2; ++i) {
        const double model = one_device_step_s(c, hw, i == 0 ? 32 : 1024);
        EXPECT_NEAR(rows[i].step_time(launch, 0.012), model, 1e-12 * model) << "e " << e << " launch " << launch;
      }
    }
}

std::vector<StepMeasurement> synthetic(const Case& c, double e, double overhead_s, double launch_s) {
  const StepTerms terms(c, kBatches);
  std::vector<StepMeasurement> rows;
  for (size_t i = 0; i < kBatches.size(); ++i)
    rows.push_back({static_cast<int>(i + 2), kBatches[i], one_device_step_s(c, terms.with(e, overhead_s, launch_s), kBatches[i])});
  return rows;
}

TEST(CalibrationFit, RecoversTheConstantsThatGeneratedTheData) {
  const Case c = load_update_case(kHw, kWorkload);
  // The spec's 3.8 us launch: a few of ResNet-18's kernels are shorter at the small batches, fewer
  // at the large ones, so L is told apart from O and recovered with e and O.
  const ConstantsFit f = fit_device_constants(c, synthetic(c, 0.6, 0.012, 3.8e-6));
  EXPECT_NEAR(f.compute_efficiency, 0.6, 1e-6);
  EXPECT_NEAR(f.step_overhead_s, 0.012, 1e-8);
  EXPECT_NEAR(f.kernel_launch_s, 3.8e-6, 1e-10);
  EXPECT_LT(f.rms_relative_error, 1e-6);
  EXPECT_TRUE(f.notes.empty());
}

TEST(CalibrationFit, RecoversALaunchLatencyThatShowsInTheData) {
  const Case c = load_update_case(kHw, kWorkload);
  // 150 us: the short kernels of the small batches wait for their launches, the large batches'
  // do not, so the launch-bound count varies over the sweep and L can be told from O.
  const ConstantsFit f = fit_device_constants(c, synthetic(c, 0.7, 0.008, 150e-6));
  ASSERT_TRUE(f.fitted[static_cast<int>(FittedConstant::KernelLaunch)]) << f.launch_note;
  EXPECT_NEAR(f.compute_efficiency, 0.7, 1e-5);
  EXPECT_NEAR(f.step_overhead_s, 0.008, 1e-7);
  EXPECT_NEAR(f.kernel_launch_s, 150e-6, 1e-9);
  EXPECT_LT(f.rms_relative_error, 1e-6);
}

TEST(CalibrationFit, KeepsTheLaunchWhereTheDataCannotTellIt) {
  Case c = load_update_case(kHw, kWorkload);
  // Generated with L = 0: the best fit has L = 0, where the launch-bound runs (the kernels of zero
  // time, if any) are the same in every row: the column of L is zero or that of O, so L keeps the
  // file's value.
  c.hw.runtime.kernel_launch_s = 0;
  const ConstantsFit f = fit_device_constants(c, synthetic(c, 0.6, 0.012, 0.0));
  EXPECT_FALSE(f.fitted[static_cast<int>(FittedConstant::KernelLaunch)]) << f.launch_note;
  EXPECT_TRUE(std::isinf(f.condition_index_all));
  EXPECT_EQ(f.kernel_launch_s, 0.0);
  EXPECT_NEAR(f.compute_efficiency, 0.6, 1e-6);
  EXPECT_NEAR(f.step_overhead_s, 0.012, 1e-8);
}

TEST(CalibrationFit, LaunchBatchingNeverFitsTheLaunch) {
  Case c = load_update_case(kHw, kWorkload);
  c.hw.runtime.launch_batching = true;  // one launch per step: the same column as step_overhead
  const ConstantsFit f = fit_device_constants(c, synthetic(c, 0.5, 0.004, c.hw.runtime.kernel_launch_s));
  EXPECT_FALSE(f.fitted[static_cast<int>(FittedConstant::KernelLaunch)]);
  EXPECT_NE(f.launch_note.find("launch_batching"), std::string::npos);
  EXPECT_NEAR(f.compute_efficiency, 0.5, 1e-6);
  EXPECT_NEAR(f.step_overhead_s, 0.004, 1e-8);
}

}  // namespace
}  // namespace kp
