#pragma once
// Two trials' validation curves are the same, bit for bit: a seed's determinism (the trainer
// tests) or an observer that must not disturb the trial (the noise probe's test).
#include <gtest/gtest.h>

#include "models/trainer/trainer.h"

namespace kp::test {

inline void expect_same_curve(const TrialResult& a, const TrialResult& b) {
  ASSERT_EQ(a.curve.size(), b.curve.size());
  for (size_t i = 0; i < a.curve.size(); ++i) {
    EXPECT_EQ(a.curve[i].step, b.curve[i].step) << "point " << i;
    EXPECT_EQ(a.curve[i].validation_error, b.curve[i].validation_error) << "point " << i;
    EXPECT_EQ(a.curve[i].train_loss, b.curve[i].train_loss) << "point " << i;
  }
}

}  // namespace kp::test
