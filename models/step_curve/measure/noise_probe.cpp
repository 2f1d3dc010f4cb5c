#include "models/step_curve/measure/noise_probe.h"

#include <algorithm>
#include <stdexcept>

#include "models/step_curve/noise_scale.h"
#include "models/trainer/splitmix.h"

namespace kp {

NoiseProbe::NoiseProbe(const ResolvedNetwork& net, const Dataset& data, int64_t b, int64_t every,
                       uint64_t seed)
    : m_data(data), m_b(b), m_every(std::max<int64_t>(1, every)), m_state(seed),
      m_net(net, std::max<int64_t>(b, 2), seed) {
  if (b < 1 || 2 * b > data.train.n)
    throw std::invalid_argument("noise probe: need 1 <= b and 2b <= the training samples");
  m_g1.resize(static_cast<size_t>(m_net.num_params()));
  m_labels.resize(static_cast<size_t>(b));
  m_idx.resize(static_cast<size_t>(b));
}

void NoiseProbe::gradient_of_next_batch() {
  // Sampling with replacement between probes, without within one mini-batch being needed: the
  // estimator only asks for independent mini-batches, and 2b << n makes repeats rare.
  const Split& s = m_data.train;
  for (int64_t& i : m_idx)
    i = static_cast<int64_t>(splitmix64_next(m_state) % static_cast<uint64_t>(s.n));
  gather(s, m_idx.data(), m_b, m_net.input(), m_labels.data());
  m_net.forward_backward(m_labels.data(), m_b);
}

void NoiseProbe::on_step(int64_t step, double /*loss*/, const Trainer& trainer) {
  if (step % m_every != 0) return;
  const int64_t n = m_net.num_params();
  std::copy(trainer.network().params(), trainer.network().params() + n, m_net.params());
  gradient_of_next_batch();
  std::copy(m_net.grads(), m_net.grads() + n, m_g1.begin());
  gradient_of_next_batch();
  const float* g2 = m_net.grads();
  double n1 = 0, n2 = 0, big = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double a = m_g1[static_cast<size_t>(i)], b = g2[i];
    n1 += a * a;
    n2 += b * b;
    big += 0.25 * (a + b) * (a + b);
  }
  const double small = 0.5 * (n1 + n2);
  const double bs = static_cast<double>(m_b), bb = 2.0 * bs;
  m_g2_sum += NoiseScaleEstimator::unbiased_g2(bs, small, bb, big);
  m_trace_sum += NoiseScaleEstimator::unbiased_trace_sigma(bs, small, bb, big);
  ++m_probes;
}

NoiseScaleResult NoiseProbe::result() const {
  NoiseScaleResult r;
  r.batch = m_b;
  r.probes = m_probes;
  if (m_probes > 0) {
    r.g2 = m_g2_sum / double(m_probes);
    r.trace_sigma = m_trace_sum / double(m_probes);
  }
  return r;
}

}  // namespace kp
