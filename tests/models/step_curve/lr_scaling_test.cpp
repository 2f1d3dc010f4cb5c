// The learning-rate scaling fit (models/step_curve/lr_scaling.h): the best trial per batch size,
// the exponent of a known power law recovered exactly and within its interval under noise, the
// t quantiles against the table, and the errors for too few batch sizes and bad rows.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <vector>

#include "core/config_error.h"
#include "models/step_curve/lr_scaling.h"

namespace kp {
namespace {

const double kInf = std::numeric_limits<double>::infinity();

// Per batch size M: the best trial has lr = 0.002 M^e and momentum m(M) with 1 - m = 0.1 M^-f
// (so lr/(1-m) ~ M^(e+f)); two worse trials and a failed one around it.
std::vector<TrialRow> synthetic_rows(double e, double f, double noise) {
  std::vector<TrialRow> rows;
  int i = 0;
  for (double m = 16; m <= 4096; m *= 2, ++i) {
    // Deterministic multiplicative noise, alternating sign and varying size.
    const double wobble = std::exp(noise * std::sin(1.7 * i + 0.3));
    const double lr = 0.002 * std::pow(m, e) * wobble;
    const double mom = 1.0 - 0.1 * std::pow(m, -f);
    rows.push_back({m, 1000.0 + 5000.0 / m * 16, lr * 3, mom, 0});       // slower
    rows.push_back({m, 500.0 + 4000.0 / m * 16, lr, mom, 1});            // the best
    rows.push_back({m, kInf, lr * 100, mom, 2});                        // diverged
    rows.push_back({m, 500.0 + 4000.0 / m * 16, lr * 0.5, mom, 3});      // tie, later trial
  }
  return rows;
}

TEST(LrScaling, BestTrialIsTheFewestStepsLowestTrialOnTies) {
  const auto best = best_metaparameters(synthetic_rows(0.5, 0.0, 0.0));
  ASSERT_EQ(best.size(), 9u);  // 16..4096
  for (const BestMetaparameters& b : best) {
    EXPECT_EQ(b.trial, 1) << b.batch;
    EXPECT_NEAR(b.learning_rate, 0.002 * std::sqrt(b.batch), 1e-12);
  }
}

TEST(LrScaling, RecoversAnExactPowerLaw) {
  const LrScaling s = fit_lr_scaling(synthetic_rows(0.7, 0.2, 0.0), "synthetic");
  EXPECT_NEAR(s.lr.value, 0.7, 1e-12);
  EXPECT_NEAR(s.lr.lo, 0.7, 1e-6);
  EXPECT_NEAR(s.lr.hi, 0.7, 1e-6);
  EXPECT_NEAR(s.lr.r2, 1.0, 1e-12);
  EXPECT_NEAR(s.effective_lr.value, 0.9, 1e-12);
  EXPECT_FALSE(s.lr.contains(1.0));
  EXPECT_FALSE(s.lr.contains(0.5));
}

TEST(LrScaling, NoisyPowerLawInsideItsInterval) {
  const LrScaling s = fit_lr_scaling(synthetic_rows(1.0, 0.0, 0.4), "synthetic");
  EXPECT_TRUE(s.lr.contains(1.0)) << s.lr.lo << " " << s.lr.hi;
  EXPECT_GT(s.lr.hi - s.lr.lo, 0.01);  // the noise widens it
  EXPECT_LT(s.lr.hi - s.lr.lo, 1.0);
  EXPECT_NEAR(s.lr.value, 1.0, 0.2);
}

TEST(LrScaling, IntervalByHand) {
  // x = log M at M = e^0, e^1, e^2, y = 0, 1, 3: slope 1.5, intercept -1/6, residuals
  // 1/6, -1/3, 1/6: SSR = 1/6, se = sqrt(SSR/(n-2)/Sxx) = sqrt(1/12), t(1) = 12.706.
  const double e = std::exp(1.0);
  const ScalingExponent s = fit_exponent({1.0, e, e * e}, {1.0, e, std::exp(3.0)}, "hand");
  EXPECT_NEAR(s.value, 1.5, 1e-12);
  EXPECT_NEAR(s.hi - s.value, 12.706 * std::sqrt(1.0 / 12.0), 1e-9);
  EXPECT_NEAR(s.r2, 1.0 - (1.0 / 6.0) / (14.0 / 3.0), 1e-12);
}

TEST(LrScaling, StudentTQuantiles) {
  EXPECT_DOUBLE_EQ(student_t_975(1), 12.706);
  EXPECT_DOUBLE_EQ(student_t_975(8), 2.306);
  EXPECT_DOUBLE_EQ(student_t_975(30), 2.042);
  EXPECT_NEAR(student_t_975(60), 2.000, 0.002);
  EXPECT_NEAR(student_t_975(120), 1.980, 0.002);
}

TEST(LrScaling, TooFewBatchSizesIsAClearError) {
  std::vector<TrialRow> rows = {{16, 100, 0.1, 0.9, 0}, {32, 60, 0.2, 0.9, 0}, {64, kInf, 0.4, 0.9, 0}};
  try {
    fit_lr_scaling(rows, "two.csv");
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("two.csv"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(">= 3 batch sizes, got 2"), std::string::npos) << e.what();
  }
}

// A trial that failed is written as read_curve_csv() reads it: empty, inf, nan, failed (any case).
TEST(LrScaling, FailureMarkersAreFailedTrials) {
  const auto path = (std::filesystem::temp_directory_path() / "kp_lr_scaling_markers.csv").string();
  std::ofstream(path) << "batch,steps,trial,learning_rate,momentum\n16,100,0,0.1,0.9\n"
                      << "16,,1,0.2,0.9\n16,NaN,2,0.3,0.9\n16,failed,3,0.4,0.9\n16,Infinity,4,0.5,0.9\n";
  const std::vector<TrialRow> rows = read_trial_rows(path);
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0].steps, 100);
  for (size_t i = 1; i < rows.size(); ++i) EXPECT_EQ(rows[i].steps, kInf) << "row " << i;
}

TEST(LrScaling, BadRowsNameFileLineAndColumn) {
  const auto path = (std::filesystem::temp_directory_path() / "kp_lr_scaling_bad.csv").string();
  std::ofstream(path) << "# c\nbatch,steps,trial,learning_rate,momentum\n16,100,0,0.1,0.9\n32,inf,1,abc,0.9\n"
                      << "64,50,2,0.1,1.5\n";
  try {
    read_trial_rows(path);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(path + ":4:"), std::string::npos) << msg;
    EXPECT_NE(msg.find("learning_rate"), std::string::npos) << msg;
    EXPECT_NE(msg.find(path + ":5:"), std::string::npos) << msg;
    EXPECT_NE(msg.find("momentum"), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace kp
