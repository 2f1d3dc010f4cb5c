// Optimizer updates and learning-rate schedules against values worked out by hand.
#include <gtest/gtest.h>

#include <stdexcept>

#include "models/trainer/optimizer.h"

namespace kp {
namespace {

OptimizerSpec make(OptimizerKind kind, double lr, double mu, double wd = 0) {
  OptimizerSpec s;
  s.kind = kind;
  s.learning_rate = lr;
  s.momentum = mu;
  s.weight_decay = wd;
  return s;
}

TEST(Optimizer, PlainSgdWithWeightDecay) {
  Optimizer opt(make(OptimizerKind::Sgd, 0.5, 0.9, 0.1), 1);
  float w = 2.0f;
  const float g = 1.0f;
  opt.step(&w, &g, 0);  // w = 2 - 0.5 * (1 + 0.1 * 2) = 1.4
  EXPECT_FLOAT_EQ(w, 1.4f);
}

TEST(Optimizer, HeavyBallMomentum) {
  Optimizer opt(make(OptimizerKind::Momentum, 0.1, 0.5), 1);
  float w = 1.0f;
  const float g = 2.0f;
  opt.step(&w, &g, 0);  // v = 2, w = 1 - 0.2 = 0.8
  EXPECT_FLOAT_EQ(w, 0.8f);
  opt.step(&w, &g, 1);  // v = 0.5 * 2 + 2 = 3, w = 0.8 - 0.3 = 0.5
  EXPECT_FLOAT_EQ(w, 0.5f);
}

TEST(Optimizer, NesterovAsInPyTorch) {
  Optimizer opt(make(OptimizerKind::Nesterov, 0.1, 0.5), 1);
  float w = 1.0f;
  const float g = 2.0f;
  opt.step(&w, &g, 0);  // v = 2, w = 1 - 0.1 * (2 + 0.5 * 2) = 0.7
  EXPECT_FLOAT_EQ(w, 0.7f);
  opt.step(&w, &g, 1);  // v = 3, w = 0.7 - 0.1 * (2 + 1.5) = 0.35
  EXPECT_FLOAT_EQ(w, 0.35f);
}

// The SGD family on the reference's plain loop: the same values as the fused update above.
TEST(Optimizer, ReferenceLoopAgreesOnTheSgdFamily) {
  for (OptimizerKind k : {OptimizerKind::Sgd, OptimizerKind::Momentum, OptimizerKind::Nesterov}) {
    Optimizer fast(make(k, 0.1, 0.5, 0.1), 1), ref(make(k, 0.1, 0.5, 0.1), 1, nullptr, true, true);
    float a = 1.0f, b = 1.0f;
    const float g = 2.0f;
    for (int step = 0; step < 3; ++step) {
      fast.step(&a, &g, step);
      ref.step(&b, &g, step);
      EXPECT_FLOAT_EQ(a, b) << static_cast<int>(k) << " step " << step;
    }
  }
}

// AdamW (Loshchilov & Hutter 2019), b1 0.9, b2 0.999: the decay first, w -= lr wd w, then Adam.
// Step 1: m = 0.05, v = 0.00025, bias-corrected 0.5 and 0.25: w = 0.99 - 0.1 * 0.5 / 0.5 = 0.89.
// Step 2: w = 0.89 - 0.0089 = 0.8811; m = 0.095, v = 0.00049975, corrected by 1 - 0.81 and
// 1 - 0.998001: 0.5 and 0.25 again, so w = 0.8811 - 0.1 = 0.7811.
TEST(Optimizer, AdamWDecouplesTheDecay) {
  OptimizerSpec s = make(OptimizerKind::AdamW, 0.1, 0, 0.1);
  Optimizer opt(s, 1);
  float w = 1.0f;
  const float g = 0.5f;
  const double sq = opt.step(&w, &g, 0);
  EXPECT_NEAR(w, 0.89f, 2e-6);
  EXPECT_DOUBLE_EQ(sq, 0.25);
  opt.step(&w, &g, 1);
  EXPECT_NEAR(w, 0.7811f, 2e-6);
}

// Adam couples the decay as an L2 term: g = 0.5 + 0.1 * 1 = 0.6, w = 1 - 0.1 * 0.6 / 0.6 = 0.9.
TEST(Optimizer, AdamCouplesTheDecay) {
  Optimizer opt(make(OptimizerKind::Adam, 0.1, 0, 0.1), 1);
  float w = 1.0f;
  const float g = 0.5f;
  opt.step(&w, &g, 0);
  EXPECT_NEAR(w, 0.9f, 2e-6);
}

TEST(Optimizer, LambIsRefused) {
  EXPECT_THROW(Optimizer(make(OptimizerKind::Lamb, 0.1, 0), 1), std::invalid_argument);
}

TEST(LearningRate, WarmupThenLinearDecay) {
  OptimizerSpec s = make(OptimizerKind::Sgd, 1.0, 0);
  s.warmup_steps = 4;
  s.schedule = LrSchedule::LinearDecay;
  s.decay_steps = 100;
  s.final_lr_factor = 0.1;
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 0), 0.25);
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 3), 1.0);
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 50), 1.0 - 0.9 * 0.5);
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 100), 0.1);
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 1000), 0.1);
}

TEST(LearningRate, Constant) {
  const OptimizerSpec s = make(OptimizerKind::Sgd, 0.3, 0);
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 0), 0.3);
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 12345), 0.3);
}

}  // namespace
}  // namespace kp
