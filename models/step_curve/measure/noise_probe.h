#pragma once
// The gradient noise scale of a training run, measured along the run: McCandlish et al. 2018
// (arXiv 1812.06162, appendix A.1) B_simple = tr(Sigma) / |G|^2 from the unbiased two-batch
// estimator (noise_scale.h). Every `every` steps the probe copies the trainer's parameters into its
// own network and computes two mean gradients g1, g2 on disjoint mini-batches of `b` training
// samples drawn by its own generator (the trainer's data order and state are untouched, so the run
// is the same with and without the probe). |G_b|^2 = (|g1|^2 + |g2|^2)/2 and
// |G_2b|^2 = |(g1 + g2)/2|^2 are the small- and big-batch norms at the same parameters.
// "Averaged over training": the unbiased |G|^2 and tr(Sigma) are summed over all probes and
// divided at the end (numerator and denominator averaged separately, as McCandlish et al. advise).
// Contract: b >= 1 and 2b <= the training split; allocation only in the constructor.
#include <cstdint>
#include <vector>

#include "models/trainer/trainer.h"

namespace kp {

struct NoiseScaleResult {
  int64_t batch = 0;       // b (B_small); B_big = 2b
  int64_t probes = 0;
  double g2 = 0;           // mean unbiased |G|^2
  double trace_sigma = 0;  // mean unbiased tr(Sigma)
  double b_simple() const { return g2 > 0 ? trace_sigma / g2 : 0.0; }
};

class NoiseProbe : public StepObserver {
 public:
  NoiseProbe(const ResolvedNetwork& net, const Dataset& data, int64_t b, int64_t every, uint64_t seed);
  void on_step(int64_t step, double loss, const Trainer& trainer) override;
  NoiseScaleResult result() const;

 private:
  void gradient_of_next_batch();  // fills m_net.grads() for b fresh samples

  const Dataset& m_data;
  int64_t m_b, m_every;
  uint64_t m_state;
  Network<float> m_net;
  std::vector<float> m_g1;
  std::vector<int32_t> m_labels;
  std::vector<int64_t> m_idx;  // the samples of the next mini-batch
  double m_g2_sum = 0, m_trace_sum = 0;
  int64_t m_probes = 0;
};

}  // namespace kp
