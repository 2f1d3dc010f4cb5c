#include "models/step_curve/pollux_trace.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "core/config_error.h"
#include "models/step_curve/step_law_fit.h"
#include "tests/scratch_dir.h"

namespace kp {
namespace {

const std::string kCifar = std::string(KP_SOURCE_DIR) + "/tests/data/pollux_cifar10";

TEST(PolluxTrace, ReadsTheCifar10Runs) {
  const std::vector<PolluxRun> runs = read_pollux_traces(kCifar);
  ASSERT_EQ(runs.size(), 6u);
  const double batches[] = {128, 256, 512, 1024, 2048, 4096};
  for (std::size_t i = 0; i < runs.size(); ++i) {
    EXPECT_EQ(runs[i].batch, batches[i]);
    EXPECT_EQ(runs[i].rows.size(), 100u);
  }
  EXPECT_EQ(runs[0].rows[0].iteration, 390.0);
  EXPECT_EQ(runs[0].rows[0].metric, 0.4455);
  // The best accuracy of the worst run (B = 4096) bounds the thresholds every run reaches.
  EXPECT_EQ(pollux_default_threshold(runs), 0.9418);
}

TEST(PolluxTrace, StepsToThresholdMatchHandReadValues) {
  // First `iteration` with metric >= 0.93, read off the CSVs by hand (awk).
  const std::vector<CurvePoint> curve = pollux_step_curve(read_pollux_traces(kCifar), 0.93);
  const double expected[] = {21874, 12322, 6469, 3734, 2228, 1568};
  ASSERT_EQ(curve.size(), 6u);
  for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(curve[i].steps, expected[i]) << curve[i].batch;
}

TEST(PolluxTrace, ShippedCurveFileMatchesTheTraces) {
  const std::vector<CurvePoint> shipped = read_curve_csv(
      std::string(KP_SOURCE_DIR) + "/tests/models/step_curve/data/pollux_cifar10_resnet18_acc0.93.csv");
  const std::vector<CurvePoint> derived = pollux_step_curve(read_pollux_traces(kCifar), 0.93);
  ASSERT_EQ(shipped.size(), derived.size());
  for (std::size_t i = 0; i < shipped.size(); ++i) {
    EXPECT_EQ(shipped[i].batch, derived[i].batch);
    EXPECT_EQ(shipped[i].steps, derived[i].steps);
  }
}

TEST(PolluxTrace, NoiseScaleIsRatioOfRunMeans) {
  // 128 * sum(grad_var) / sum(grad_sqr), hand-computed with awk.
  const std::vector<PolluxRun> runs = read_pollux_traces(kCifar);
  const double expected[] = {1444, 1115, 1995, 1954, 1814, 1665};
  for (std::size_t i = 0; i < 6; ++i) EXPECT_NEAR(runs[i].b_simple(), expected[i], 0.5) << runs[i].batch;
}

TEST(PolluxTrace, FitOnCifar10IsSaneAndFinite) {
  const std::vector<PolluxRun> runs = read_pollux_traces(kCifar);
  for (double threshold : {0.93, pollux_default_threshold(runs)}) {
    FitOptions options;
    options.origin = kCifar;
    const StepLawFit fit = fit_step_law(pollux_step_curve(runs, threshold), options);
    std::printf("Pollux CIFAR-10 @ accuracy %.4f: N_inf %.0f [%.0f, %.0f], alpha %.4g [%.4g, %.4g], "
                "B_crit %.0f [%.0f, %.0f], R^2(log) %.4f, max useful batch %.0f\n",
                threshold, fit.n_inf.value, fit.n_inf.lo, fit.n_inf.hi, fit.alpha.value, fit.alpha.lo,
                fit.alpha.hi, fit.b_crit.value, fit.b_crit.lo, fit.b_crit.hi, fit.r2_log,
                fit.max_useful_batch.value);
    EXPECT_TRUE(std::isfinite(fit.law.n_inf) && fit.law.n_inf > 0.0);
    EXPECT_TRUE(std::isfinite(fit.law.alpha) && fit.law.alpha > 0.0);
    // The knee lies inside the measured range and the law explains most of the log variance.
    EXPECT_GT(fit.b_crit.value, 128.0);
    EXPECT_LT(fit.b_crit.value, 4096.0);
    EXPECT_GT(fit.r2_log, 0.95);
    EXPECT_LE(fit.b_crit.lo, fit.b_crit.value);
    EXPECT_GE(fit.b_crit.hi, fit.b_crit.value);
  }
}

TEST(PolluxTrace, UnreachedThresholdAndEmptyDirAreConfigErrors) {
  const std::filesystem::path dir = test::process_scratch_dir("kp_pollux");
  EXPECT_THROW(read_pollux_traces(dir.string()), ConfigError);
  std::ofstream(dir / "validation-64.csv") << "progress,iteration,metric,grad_sqr,grad_var\n"
                                              "1,1,0.5,1,1\n2,2,0.6,1,1\n";
  std::ofstream(dir / "validation-32.csv") << "progress,iteration,metric,grad_sqr,grad_var\n"
                                              "1,1,0.5,1,1\n2,2,0.8,x,1\n";
  try {
    read_pollux_traces(dir.string());
    FAIL();
  } catch (const ConfigError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1u);
    EXPECT_EQ(e.diagnostics()[0].line, 3);
    EXPECT_EQ(e.diagnostics()[0].key, "grad_sqr");
  }
  std::ofstream(dir / "validation-32.csv") << "progress,iteration,metric,grad_sqr,grad_var\n"
                                              "1,1,0.5,1,1\n2,2,0.8,1,1\n";
  const std::vector<PolluxRun> runs = read_pollux_traces(dir.string());
  EXPECT_EQ(pollux_default_threshold(runs), 0.6);
  EXPECT_THROW(pollux_step_curve(runs, 0.7), ConfigError);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kp
