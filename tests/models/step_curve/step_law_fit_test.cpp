#include "models/step_curve/step_law_fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "core/config_error.h"

namespace kp {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<CurvePoint> on_law(const StepLaw& law, std::vector<double> batches) {
  std::vector<CurvePoint> points;
  for (double b : batches) points.push_back({b, law.steps(b)});
  return points;
}

const std::vector<double> kBatches = {16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192};

TEST(StepLaw, ClosedForm) {
  const StepLaw law{1000.0, 256000.0};  // B_crit = 256
  EXPECT_DOUBLE_EQ(law.steps(256.0), 2000.0);
  EXPECT_DOUBLE_EQ(law.steps(1.0), 257000.0);
  EXPECT_DOUBLE_EQ(law.b_crit(), 256.0);
  EXPECT_TRUE(std::isinf(StepLaw{0.0, 5.0}.b_crit()));
}

TEST(Regimes, Definitions) {
  const StepLaw law{1000.0, 900000.0};  // B_crit = 900
  EXPECT_EQ(regime_of(law, 100.0), Regime::perfect_scaling);   // alpha/M = 9 N_inf exactly
  EXPECT_EQ(regime_of(law, 101.0), Regime::diminishing_returns);
  EXPECT_EQ(regime_of(law, 8999.0), Regime::diminishing_returns);
  EXPECT_EQ(regime_of(law, 9000.0), Regime::plateau);          // N = 1.1 N_inf exactly
}

TEST(FitStepLaw, RecoversNoiseFreeLawExactly) {
  const StepLaw truth{1500.0, 1500.0 * 900.0};
  const StepLawFit fit = fit_step_law(on_law(truth, kBatches));
  EXPECT_NEAR(fit.law.n_inf / truth.n_inf, 1.0, 1e-7);
  EXPECT_NEAR(fit.law.alpha / truth.alpha, 1.0, 1e-7);
  EXPECT_NEAR(fit.b_crit.value, 900.0, 900.0 * 1e-7);
  EXPECT_NEAR(fit.max_useful_batch.value, 9000.0, 9000.0 * 1e-7);
  EXPECT_NEAR(fit.r2_log, 1.0, 1e-12);
  EXPECT_EQ(fit.bootstrap_method, "residuals");
  // Zero residuals: the bootstrap has nothing to resample, the interval collapses on the value.
  EXPECT_NEAR(fit.n_inf.lo / truth.n_inf, 1.0, 1e-6);
  EXPECT_NEAR(fit.n_inf.hi / truth.n_inf, 1.0, 1e-6);
}

TEST(FitStepLaw, RecoversKneeAtEdgesOfRange) {
  for (double b_crit : {20.0, 5000.0}) {
    const StepLaw truth{300.0, 300.0 * b_crit};
    const StepLaw law = fit_law_log_ls(on_law(truth, kBatches));
    EXPECT_NEAR(law.b_crit() / b_crit, 1.0, 1e-6) << b_crit;
  }
}

TEST(FitStepLaw, TwoBatchSizesAreAnExactFit) {
  const StepLaw truth{100.0, 25600.0};
  const StepLaw law = fit_law_log_ls(on_law(truth, {64, 1024}));
  EXPECT_NEAR(law.n_inf, 100.0, 1e-6);
  EXPECT_NEAR(law.alpha, 25600.0, 1e-3);
}

TEST(FitStepLaw, BoundaryLaws) {
  // Perfect scaling everywhere: N_inf = 0, B_crit unbounded.
  StepLaw law = fit_law_log_ls(on_law(StepLaw{0.0, 1e6}, kBatches));
  EXPECT_EQ(law.n_inf, 0.0);
  EXPECT_NEAR(law.alpha / 1e6, 1.0, 1e-12);
  // Flat curve: alpha = 0.
  law = fit_law_log_ls(on_law(StepLaw{700.0, 0.0}, kBatches));
  EXPECT_EQ(law.alpha, 0.0);
  EXPECT_NEAR(law.n_inf, 700.0, 1e-9);
}

std::vector<CurvePoint> noisy(const StepLaw& law, double sigma, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0.0, sigma);
  std::vector<CurvePoint> points;
  for (double b : kBatches) points.push_back({b, law.steps(b) * std::exp(noise(rng))});
  return points;
}

TEST(FitStepLaw, NoisyCurveTruthInsideBootstrapInterval) {
  const StepLaw truth{2000.0, 2000.0 * 500.0};
  FitOptions options;
  options.seed = 7;
  const StepLawFit fit = fit_step_law(noisy(truth, 0.05, 42), options);
  EXPECT_EQ(fit.resamples, 1000);
  EXPECT_GT(fit.r2_log, 0.98);
  EXPECT_LE(fit.n_inf.lo, truth.n_inf);
  EXPECT_GE(fit.n_inf.hi, truth.n_inf);
  EXPECT_LE(fit.alpha.lo, truth.alpha);
  EXPECT_GE(fit.alpha.hi, truth.alpha);
  EXPECT_LE(fit.b_crit.lo, 500.0);
  EXPECT_GE(fit.b_crit.hi, 500.0);
  EXPECT_LT(fit.n_inf.lo, fit.n_inf.value);
  EXPECT_GT(fit.n_inf.hi, fit.n_inf.value);
  // Same seed, same interval.
  const StepLawFit again = fit_step_law(noisy(truth, 0.05, 42), options);
  EXPECT_EQ(fit.b_crit.lo, again.b_crit.lo);
  EXPECT_EQ(fit.b_crit.hi, again.b_crit.hi);
}

TEST(FitStepLaw, BootstrapCoverageIsNearNominal) {
  // A 95% percentile interval on 10 points should cover B_crit in most of 40 independent curves.
  const StepLaw truth{2000.0, 2000.0 * 500.0};
  FitOptions options;
  options.bootstrap_resamples = 300;
  int covered = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const StepLawFit fit = fit_step_law(noisy(truth, 0.05, seed), options);
    covered += fit.b_crit.lo <= 500.0 && 500.0 <= fit.b_crit.hi;
  }
  EXPECT_GE(covered, 32);
}

TEST(FitStepLaw, TrialsTakeMinimumAndBootstrapOverTrials) {
  const StepLaw truth{1000.0, 256000.0};
  std::vector<CurvePoint> trials;
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> slack(1.0, 1.6);  // untuned trials need more steps
  for (double b : kBatches) {
    trials.push_back({b, truth.steps(b)});                  // the tuned trial
    for (int k = 0; k < 5; ++k) trials.push_back({b, truth.steps(b) * slack(rng)});
    trials.push_back({b, kInf});                            // a diverged trial
  }
  trials.push_back({32768.0, kInf});  // a batch size where every trial failed
  const StepLawFit fit = fit_step_law(trials);
  EXPECT_EQ(fit.bootstrap_method, "trials");
  ASSERT_EQ(fit.points.size(), kBatches.size());
  ASSERT_EQ(fit.dropped_batches.size(), 1u);
  EXPECT_EQ(fit.dropped_batches[0], 32768.0);
  EXPECT_NEAR(fit.law.n_inf / 1000.0, 1.0, 1e-7);
  EXPECT_NEAR(fit.b_crit.value / 256.0, 1.0, 1e-7);
  EXPECT_LE(fit.b_crit.lo, 256.0 * (1 + 1e-7));
  EXPECT_GE(fit.b_crit.hi, 256.0 * (1 - 1e-7));
}

TEST(FitStepLaw, DegenerateInputIsAConfigError) {
  FitOptions options;
  options.origin = "curve.csv";
  EXPECT_THROW(fit_step_law({}, options), ConfigError);
  EXPECT_THROW(fit_step_law({{128, 500}, {128, 600}}, options), ConfigError);  // one batch size
  EXPECT_THROW(fit_step_law({{128, kInf}, {256, kInf}}, options), ConfigError);  // all failed
  EXPECT_THROW(fit_step_law({{128, 500}, {256, kInf}}, options), ConfigError);   // one left
  EXPECT_THROW(fit_step_law({{128, 500}, {-4, 100}}, options), ConfigError);
  EXPECT_THROW(fit_step_law({{128, 500}, {256, std::nan("")}}, options), ConfigError);
  try {
    fit_step_law({{128, kInf}}, options);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("curve.csv: error: "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("every trial failed"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kp
