#pragma once
// The optimizers' element-wise update written plainly (optimizer.h has the formulas), the
// reference path's and the only one of the Adam family:
//   adam:  g += wd * w (coupled, as torch.optim.Adam); m = b1 m + (1 - b1) g;
//          v = b2 v + (1 - b2) g^2; w -= lr * (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)
//   adamw: w -= lr * wd * w first (decoupled, Loshchilov & Hutter 2019), then adam without wd
// with t = step + 1. Contract: float arithmetic per element in index order, no allocation; m1 is
// the velocity (momentum, nesterov) or first moment, m2 the second moment (Adam family; else
// unused). Returns the squared L2 norm of g (before weight decay), summed in double in index
// order. Throws std::invalid_argument for lamb (simulated only). Internal to kp_trainer.
#include <cstdint>

#include "core/workload_spec.h"

namespace kp::trainer_detail {

double reference_update(const OptimizerSpec& spec, double lr, int64_t step, float* w,
                        const float* g, float* m1, float* m2, int64_t n);

}  // namespace kp::trainer_detail
