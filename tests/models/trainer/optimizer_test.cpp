// Optimizer updates and learning-rate schedules against values worked out by hand.
#include <gtest/gtest.h>

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
