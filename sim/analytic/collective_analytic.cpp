#include "sim/analytic/collective_analytic.h"

#include <cmath>

namespace kp {

TorusDims torus_dims(int64_t learners) {
  int64_t x = static_cast<int64_t>(std::sqrt(static_cast<double>(learners)));
  while (x > 1 && learners % x != 0) --x;
  return {x, learners / x};
}

double ring_allreduce_s(int64_t p, double bytes, double alpha_s, double bandwidth) {
  if (p <= 1) return 0.0;
  const double pd = static_cast<double>(p);
  return 2.0 * (pd - 1.0) * (alpha_s + bytes / (pd * bandwidth));
}

double allreduce_s(const InterconnectSpec& ic, int64_t p, double bytes) {
  if (p <= 1) return 0.0;
  const double bw = ic.link.bandwidth_bytes_per_s * ic.efficiency * ic.links_per_chip;
  const double a = ic.link.latency_s;
  const double pd = static_cast<double>(p);
  switch (ic.collective) {
    case Collective::Ring: return ring_allreduce_s(p, bytes, a, bw);
    case Collective::HalvingDoubling:
      return 2.0 * std::ceil(std::log2(pd)) * a + 2.0 * (pd - 1.0) / pd * bytes / bw;
    case Collective::DoubleBinaryTree: return 2.0 * std::ceil(std::log2(pd)) * a + bytes / bw;
    case Collective::Torus2d: {
      const TorusDims t = torus_dims(p);
      return ring_allreduce_s(t.x, bytes, a, bw) + ring_allreduce_s(t.y, bytes / t.x, a, bw);
    }
    case Collective::Hierarchical: {
      const int64_t g = std::min<int64_t>(p, ic.devices_per_node);
      const int64_t nodes = (p + g - 1) / g;
      const double gd = static_cast<double>(g);
      const double in_node = g > 1 ? (gd - 1.0) * (a + bytes / (gd * bw)) : 0.0;
      const double net_bw = ic.inter_node.bandwidth_bytes_per_s * ic.efficiency;
      return 2.0 * in_node + ring_allreduce_s(nodes, bytes, ic.inter_node.latency_s, net_bw);
    }
  }
  return 0.0;
}

double allreduce_bytes_per_chip(const InterconnectSpec& ic, int64_t p, double bytes) {
  if (p <= 1) return 0.0;
  const double pd = static_cast<double>(p);
  if (ic.collective == Collective::DoubleBinaryTree) return 2.0 * bytes;
  return 2.0 * (pd - 1.0) / pd * bytes;
}

}  // namespace kp
