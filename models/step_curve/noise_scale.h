#pragma once
// McCandlish et al. 2018 (arXiv 1812.06162, appendix A.1): the simple gradient noise scale
// B_simple = tr(Sigma) / |G|^2, estimated without per-example gradients from the squared norms of
// two mean gradients at batch sizes B_small < B_big. Since E|G_B|^2 = |G|^2 + tr(Sigma)/B:
//   |G|^2     ~ (B_big |G_big|^2 - B_small |G_small|^2) / (B_big - B_small)
//   tr(Sigma) ~ (|G_small|^2 - |G_big|^2) / (1/B_small - 1/B_big)
// Both are unbiased but noisy, so the numerator and the denominator are averaged separately
// (exponential moving averages with the same decay) before dividing.
// Contract: add() needs 0 < b_small < b_big and finite norms (std::invalid_argument otherwise).
// b_simple() is NaN before the first add() and +inf while the averaged |G|^2 is <= 0 (noise
// dominates what the samples can resolve).
#include <cstddef>

namespace kp {

class NoiseScaleEstimator {
 public:
  // decay in [0, 1): weight of the history per add(); 0 keeps only the last sample. The averages
  // are bias-corrected (divided by the accumulated weight), so early values are not pulled to 0.
  explicit NoiseScaleEstimator(double decay = 0.95);

  void add(double b_small, double g2_small, double b_big, double g2_big);

  std::size_t count() const { return m_count; }
  double g2() const;           // averaged unbiased |G|^2
  double trace_sigma() const;  // averaged unbiased tr(Sigma)
  double b_simple() const;

  static double unbiased_g2(double b_small, double g2_small, double b_big, double g2_big);
  static double unbiased_trace_sigma(double b_small, double g2_small, double b_big, double g2_big);

 private:
  double m_decay;
  double m_g2_sum = 0.0;
  double m_trace_sum = 0.0;
  double m_weight = 0.0;
  std::size_t m_count = 0;
};

}  // namespace kp
