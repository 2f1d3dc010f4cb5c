#pragma once
// The synthetic 4-class task on 8x8 images that the trainer tests learn: its data (512 training,
// 256 validation samples) and a trial set-up (batch 16, Nesterov lr 0.02 momentum 0.9, target 2%
// validation error within 200 steps, evaluated every 50).
#include <cstdint>

#include "models/trainer/trainer.h"

namespace kp::test {

inline const Dataset& synthetic_data() {
  static const Dataset d = make_synthetic_dataset({1, 8, 8}, 4, 512, 256, 11);
  return d;
}

inline TrialConfig synthetic_config(uint64_t seed) {
  TrialConfig c;
  c.batch = 16;
  c.optimizer.kind = OptimizerKind::Nesterov;
  c.optimizer.learning_rate = 0.02;
  c.optimizer.momentum = 0.9;
  c.max_steps = 200;
  c.eval_every = 50;
  c.target_error = 0.02;
  c.seed = seed;
  return c;
}

}  // namespace kp::test
