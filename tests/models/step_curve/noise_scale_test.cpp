#include "models/step_curve/noise_scale.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>

namespace kp {
namespace {

// E|G_B|^2 = |G|^2 + tr(Sigma)/B (McCandlish et al. 2018, eq. A.1).
double expected_g2(double g2, double trace, double b) { return g2 + trace / b; }

TEST(NoiseScale, ExactExpectationsRecoverGAndTrace) {
  const double g2 = 0.04, trace = 36.0;  // B_simple = 900
  EXPECT_NEAR(NoiseScaleEstimator::unbiased_g2(32, expected_g2(g2, trace, 32), 512,
                                               expected_g2(g2, trace, 512)), g2, 1e-12);
  EXPECT_NEAR(NoiseScaleEstimator::unbiased_trace_sigma(32, expected_g2(g2, trace, 32), 512,
                                                        expected_g2(g2, trace, 512)), trace, 1e-9);
  NoiseScaleEstimator est(0.9);
  EXPECT_TRUE(std::isnan(est.b_simple()));
  for (int i = 0; i < 5; ++i)
    est.add(32, expected_g2(g2, trace, 32), 512, expected_g2(g2, trace, 512));
  EXPECT_EQ(est.count(), 5u);
  EXPECT_NEAR(est.g2(), g2, 1e-12);
  EXPECT_NEAR(est.trace_sigma(), trace, 1e-9);
  EXPECT_NEAR(est.b_simple(), 900.0, 1e-6);
}

TEST(NoiseScale, SampledGradientsConvergeToTrueNoiseScale) {
  // Per-example gradients g = G + xi with xi ~ N(0, diag(s^2)); a batch mean has covariance
  // Sigma/B, so |G_B|^2 is a noisy sample with the expectation above.
  const int dims = 50;
  std::vector<double> g(dims), s(dims);
  double g2 = 0.0, trace = 0.0;
  for (int d = 0; d < dims; ++d) {
    g[d] = 0.02 * (d % 5 + 1);
    s[d] = 0.5 + 0.01 * d;
    g2 += g[d] * g[d];
    trace += s[d] * s[d];
  }
  std::mt19937_64 rng(11);
  std::normal_distribution<double> normal(0.0, 1.0);
  auto batch_norm2 = [&](double b) {
    double n2 = 0.0;
    for (int d = 0; d < dims; ++d) {
      const double v = g[d] + s[d] / std::sqrt(b) * normal(rng);
      n2 += v * v;
    }
    return n2;
  };
  NoiseScaleEstimator est(0.999);
  for (int step = 0; step < 20000; ++step) est.add(16, batch_norm2(16), 256, batch_norm2(256));
  EXPECT_NEAR(est.g2() / g2, 1.0, 0.05);
  EXPECT_NEAR(est.trace_sigma() / trace, 1.0, 0.05);
  EXPECT_NEAR(est.b_simple() / (trace / g2), 1.0, 0.08);
}

TEST(NoiseScale, AveragesNumeratorAndDenominatorSeparately) {
  // Two samples: |G|^2 estimates 1 then 3, tr(Sigma) 10 both times. With decay 0.5 the EMA weights
  // are 1:2, so B_simple = 10 / ((1 + 2*3)/3) = 30/7, not the weighted mean of the ratios
  // (10 + 2*10/3)/3 = 50/9.
  NoiseScaleEstimator est(0.5);
  auto add = [&](double g2, double trace) { est.add(1.0, g2 + trace / 1.0, 2.0, g2 + trace / 2.0); };
  add(1.0, 10.0);
  add(3.0, 10.0);
  EXPECT_NEAR(est.g2(), 7.0 / 3.0, 1e-12);
  EXPECT_NEAR(est.trace_sigma(), 10.0, 1e-12);
  EXPECT_NEAR(est.b_simple(), 30.0 / 7.0, 1e-12);
}

TEST(NoiseScale, RejectsBadInput) {
  EXPECT_THROW(NoiseScaleEstimator(1.0), std::invalid_argument);
  NoiseScaleEstimator est;
  EXPECT_THROW(est.add(64, 1.0, 64, 1.0), std::invalid_argument);
  EXPECT_THROW(est.add(0, 1.0, 64, 1.0), std::invalid_argument);
  EXPECT_THROW(est.add(32, std::nan(""), 64, 1.0), std::invalid_argument);
  est.add(32, 1.0, 64, 1.0);  // no signal at all: |G|^2 = 1, trace 0
  EXPECT_EQ(est.b_simple(), 0.0);
  est.add(32, 2.0, 64, 0.0);  // |G|^2 estimate negative enough to make the average <= 0
  EXPECT_TRUE(std::isinf(est.b_simple()));
}

}  // namespace
}  // namespace kp
