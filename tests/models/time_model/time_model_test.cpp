// The time model: closed-form optimum, knee, best batch per P on constructed cases.
#include <gtest/gtest.h>

#include <cmath>

#include "models/time_model/time_model.h"

namespace kp {
namespace {

// T_update = a + b*M/P + c exactly, so the optimum has a closed form.
class LinearUpdate : public UpdateModel {
 public:
  LinearUpdate(double a, double b, double c) : m_a(a), m_b(b), m_c(c) {}
  const char* fidelity() const override { return "test"; }
  UpdateResult simulate(int64_t batch, int64_t learners, std::vector<LayerRecord>*) const override {
    UpdateResult r;
    r.per_learner_batch = (batch + learners - 1) / learners;
    r.breakdown.forward_s = m_a + m_b * static_cast<double>(batch) / static_cast<double>(learners);
    r.breakdown.optimizer_s = m_c;
    r.breakdown.t_update_s = r.breakdown.forward_s + m_c;
    return r;
  }

 private:
  double m_a, m_b, m_c;
};

}  // namespace

TEST(TimeModel, ClosedFormOptimum) {
  // sqrt(2e5 * 2e-3 * 4 / (1000 * 1e-5)) = sqrt(160000) = 400
  const StepLaw law{1000, 2e5};
  EXPECT_DOUBLE_EQ(optimal_batch_closed_form(law, 1e-3, 1e-5, 1e-3, 4), 400.0);
}

TEST(TimeModel, GridOptimumBracketsTheClosedForm) {
  const StepLaw law{1000, 2e5};
  const LinearUpdate model(1e-3, 1e-5, 1e-3);
  HardwareSpec hw;
  PredictOptions opt;
  for (int64_t m = 16; m <= 4096; ++m) opt.batches.push_back(m);
  opt.learners = {4};
  const Prediction p = predict(model, law, hw, opt);
  EXPECT_EQ(p.scaling[0].best.batch, 400);
  // T(400) = (1000 + 500) * (2e-3 + 1e-3) = 4.5 s
  EXPECT_NEAR(p.scaling[0].best.t_total_s, 4.5, 1e-12);
}

TEST(TimeModel, KneeOnAConstructedCase) {
  // 1->2: 55 < 90, 2->4: 30 < 49.5, 4->8: 28 > 27 (less than 10% better): the knee is 4.
  EXPECT_EQ(find_knee({1, 2, 4, 8, 16}, {100, 55, 30, 28, 27}, 0.1), 4);
  EXPECT_EQ(find_knee({1, 2, 4}, {100, 50, 25}, 0.1), 0);
  EXPECT_EQ(find_knee({1, 2, 4}, {100, 50, 25}, 0.6), 1);
}

TEST(TimeModel, CostAndEnergyScaleWithChipsAndSteps) {
  const StepLaw law{100, 0};
  const LinearUpdate model(1.0, 0.0, 0.0);  // 1 s per update whatever M and P
  HardwareSpec hw;
  hw.cost_per_chip_hour_usd = 3.6;
  const TimePoint t = evaluate_point(model, law, hw, 64, 8);
  EXPECT_DOUBLE_EQ(t.t_total_s, 100.0);
  EXPECT_DOUBLE_EQ(t.cost_usd, 8 * 100.0 / 3600.0 * 3.6);
}

TEST(TimeModel, PowersOfTwo) {
  EXPECT_EQ(powers_of_two(3, 40), (std::vector<int64_t>{3, 6, 12, 24}));
  EXPECT_EQ(powers_of_two(1, 8), (std::vector<int64_t>{1, 2, 4, 8}));
  // Up to the largest int64: 2^0 .. 2^62, no overflowing doubling (it used to loop forever).
  const std::vector<int64_t> all = powers_of_two(1, INT64_MAX);
  ASSERT_EQ(all.size(), 63u);
  EXPECT_EQ(all.back(), INT64_C(1) << 62);
}

}  // namespace kp
