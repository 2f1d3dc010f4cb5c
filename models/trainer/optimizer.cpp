#include "models/trainer/optimizer.h"

#include <algorithm>

namespace kp {

double learning_rate_at(const OptimizerSpec& s, int64_t step) {
  if (s.warmup_steps > 0 && step < s.warmup_steps)
    return s.learning_rate * double(step + 1) / double(s.warmup_steps);
  if (s.schedule == LrSchedule::LinearDecay && s.decay_steps > 0) {
    const double frac = std::min(1.0, double(step) / double(s.decay_steps));
    return s.learning_rate * (1.0 - (1.0 - s.final_lr_factor) * frac);
  }
  return s.learning_rate;
}

Optimizer::Optimizer(const OptimizerSpec& spec, int64_t num_params)
    : m_spec(spec),
      m_n(num_params),
      m_velocity(spec.kind == OptimizerKind::Sgd ? 0 : static_cast<size_t>(num_params), 0.0f) {}

void Optimizer::step(float* w, const float* g, int64_t step) {
  const float lr = static_cast<float>(learning_rate_at(m_spec, step));
  const float wd = static_cast<float>(m_spec.weight_decay);
  const float mu = static_cast<float>(m_spec.momentum);
  const int64_t n = m_n;
  float* v = m_velocity.data();
  switch (m_spec.kind) {
    case OptimizerKind::Sgd:
      for (int64_t i = 0; i < n; ++i) w[i] -= lr * (g[i] + wd * w[i]);
      return;
    case OptimizerKind::Momentum:
      for (int64_t i = 0; i < n; ++i) {
        const float gi = g[i] + wd * w[i];
        v[i] = mu * v[i] + gi;
        w[i] -= lr * v[i];
      }
      return;
    case OptimizerKind::Nesterov:
      for (int64_t i = 0; i < n; ++i) {
        const float gi = g[i] + wd * w[i];
        v[i] = mu * v[i] + gi;
        w[i] -= lr * (gi + mu * v[i]);
      }
      return;
  }
}

}  // namespace kp
