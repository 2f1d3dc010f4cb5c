#include "models/trainer/reference_update.h"

#include <cmath>
#include <stdexcept>

namespace kp::trainer_detail {

double reference_update(const OptimizerSpec& s, double lr_d, int64_t step, float* w,
                        const float* g, float* m1, float* m2, int64_t n) {
  const float lr = static_cast<float>(lr_d), wd = static_cast<float>(s.weight_decay);
  const float mu = static_cast<float>(s.momentum);
  double sq = 0;
  switch (s.kind) {
    case OptimizerKind::Sgd:
    case OptimizerKind::Momentum:
    case OptimizerKind::Nesterov:
      for (int64_t i = 0; i < n; ++i) {
        sq += double(g[i]) * g[i];
        const float gi = wd != 0.0f ? g[i] + wd * w[i] : g[i];  // as torch.optim.SGD
        if (s.kind == OptimizerKind::Sgd) {
          w[i] -= lr * gi;
          continue;
        }
        m1[i] = mu * m1[i] + gi;
        w[i] -= lr * (s.kind == OptimizerKind::Momentum ? m1[i] : gi + mu * m1[i]);
      }
      return sq;
    case OptimizerKind::Adam:
    case OptimizerKind::AdamW: {
      const double t = double(step + 1);
      const float b1 = static_cast<float>(s.beta1), b2 = static_cast<float>(s.beta2);
      const float c1 = static_cast<float>(1.0 / (1.0 - std::pow(s.beta1, t)));
      const float c2 = static_cast<float>(1.0 / (1.0 - std::pow(s.beta2, t)));
      const float eps = static_cast<float>(s.epsilon);
      const bool decoupled = s.kind == OptimizerKind::AdamW;
      for (int64_t i = 0; i < n; ++i) {
        sq += double(g[i]) * g[i];
        float gi = g[i];
        if (wd != 0.0f) {
          if (decoupled)
            w[i] -= lr * wd * w[i];
          else
            gi += wd * w[i];
        }
        m1[i] = b1 * m1[i] + (1.0f - b1) * gi;
        m2[i] = b2 * m2[i] + (1.0f - b2) * gi * gi;
        w[i] -= lr * (m1[i] * c1) / (std::sqrt(m2[i] * c2) + eps);
      }
      return sq;
    }
    case OptimizerKind::Lamb: break;
  }
  throw std::invalid_argument("the trainer has no lamb update (lamb is simulated only)");
}

}  // namespace kp::trainer_detail
