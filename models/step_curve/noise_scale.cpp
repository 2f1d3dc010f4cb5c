#include "models/step_curve/noise_scale.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace kp {

NoiseScaleEstimator::NoiseScaleEstimator(double decay) : m_decay(decay) {
  if (!(decay >= 0.0 && decay < 1.0))
    throw std::invalid_argument("NoiseScaleEstimator: decay must be in [0, 1), got " + std::to_string(decay));
}

double NoiseScaleEstimator::unbiased_g2(double b_small, double g2_small, double b_big, double g2_big) {
  return (b_big * g2_big - b_small * g2_small) / (b_big - b_small);
}

double NoiseScaleEstimator::unbiased_trace_sigma(double b_small, double g2_small, double b_big,
                                                 double g2_big) {
  return (g2_small - g2_big) / (1.0 / b_small - 1.0 / b_big);
}

void NoiseScaleEstimator::add(double b_small, double g2_small, double b_big, double g2_big) {
  if (!(b_small > 0.0 && b_small < b_big) || !std::isfinite(b_big) || !std::isfinite(g2_small) ||
      !std::isfinite(g2_big))
    throw std::invalid_argument("NoiseScaleEstimator::add: need 0 < b_small < b_big and finite norms");
  m_g2_sum = m_decay * m_g2_sum + (1.0 - m_decay) * unbiased_g2(b_small, g2_small, b_big, g2_big);
  m_trace_sum =
      m_decay * m_trace_sum + (1.0 - m_decay) * unbiased_trace_sigma(b_small, g2_small, b_big, g2_big);
  m_weight = m_decay * m_weight + (1.0 - m_decay);
  ++m_count;
}

double NoiseScaleEstimator::g2() const {
  return m_count ? m_g2_sum / m_weight : std::numeric_limits<double>::quiet_NaN();
}

double NoiseScaleEstimator::trace_sigma() const {
  return m_count ? m_trace_sum / m_weight : std::numeric_limits<double>::quiet_NaN();
}

double NoiseScaleEstimator::b_simple() const {
  if (!m_count) return std::numeric_limits<double>::quiet_NaN();
  if (m_g2_sum <= 0.0) return std::numeric_limits<double>::infinity();
  return m_trace_sum / m_g2_sum;  // the bias-correction weights cancel
}

}  // namespace kp
