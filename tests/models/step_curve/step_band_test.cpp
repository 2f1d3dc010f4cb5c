// The step-curve band of the report: pointwise percentiles of N(M) over bootstrap laws, on hand
// cases, and on the shipped Pollux curve (the band holds the law a workload resolves from it).
#include <gtest/gtest.h>

#include "models/step_curve/step_band.h"

namespace kp {

TEST(StepBand, PercentilesOfNOverTheBootstrapLaws) {
  StepLawFit fit;
  fit.law = {300, 3000};
  fit.bootstrap_method = "trials";
  // N(M) = 100 + 1000 k / M for k = 1..5: at M = 10 the samples are 200, 300, 400, 500, 600.
  for (int k = 1; k <= 5; ++k) fit.bootstrap_laws.push_back({100, 1000.0 * k});
  const StepBand b = step_band(fit, 10, 1000, 3, 0.5);
  ASSERT_EQ(b.batch.size(), 3u);
  EXPECT_DOUBLE_EQ(b.batch[0], 10);
  EXPECT_DOUBLE_EQ(b.batch[1], 100);
  EXPECT_DOUBLE_EQ(b.batch[2], 1000);
  // 25th and 75th percentiles of 5 sorted samples: positions 1 and 3.
  EXPECT_DOUBLE_EQ(b.lo[0], 300);
  EXPECT_DOUBLE_EQ(b.hi[0], 500);
  EXPECT_DOUBLE_EQ(b.lo[2], 100 + 2);  // 100 + 2000/1000
  EXPECT_DOUBLE_EQ(b.hi[2], 100 + 4);
  EXPECT_EQ(b.method, "trials");
}

TEST(StepBand, NoBootstrapMeansTheBandIsTheLaw) {
  StepLawFit fit;
  fit.law = {100, 6400};
  const StepBand b = step_band(fit, 16, 256, 2, 0.95);
  EXPECT_DOUBLE_EQ(b.lo[0], 500);
  EXPECT_DOUBLE_EQ(b.hi[0], 500);
  EXPECT_DOUBLE_EQ(b.lo[1], 125);
}

TEST(StepBand, PolluxCurveBandHoldsTheFittedLaw) {
  const std::string csv = std::string(KP_SOURCE_DIR) + "/workloads/resnet18_cifar10_pollux_curve.csv";
  const StepBand b = step_band_from_csv(csv, 32, 16384, 200);
  // What a workload with `step_curve: {kind: file}` resolves to (models/time_model/step_source.cpp).
  const StepLaw law = fit_law_log_ls(best_per_batch(read_curve_csv(csv)), csv);
  ASSERT_GE(b.measured.size(), 2u);
  EXPECT_EQ(b.batch.front(), 32);
  EXPECT_EQ(b.batch.back(), 16384);
  for (size_t k = 0; k < b.batch.size(); ++k) {
    const double n = law.steps(b.batch[k]);
    EXPECT_LE(b.lo[k], n * (1 + 1e-9)) << b.batch[k];
    EXPECT_GE(b.hi[k], n * (1 - 1e-9)) << b.batch[k];
    EXPECT_LT(b.lo[k], b.hi[k]) << "a real bootstrap has a width";
  }
}

}  // namespace kp
