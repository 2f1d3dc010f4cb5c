#include "sim/analytic/collective_analytic.h"

#include <algorithm>
#include <cmath>

namespace kp {

TorusDims torus_dims(int64_t learners) {
  int64_t x = static_cast<int64_t>(std::sqrt(static_cast<double>(learners)));
  while (x > 1 && learners % x != 0) --x;
  return {x, learners / x};
}

std::string learners_problem(const InterconnectSpec& ic, int64_t p) {
  const std::string ps = std::to_string(p);
  if (p < 1) return "expected at least 1 learner, got " + ps;
  if (p > ic.max_learners)
    return "expected at most " + std::to_string(ic.max_learners) + " learners (interconnect.max_learners), got " + ps;
  if (p == 1) return "";
  if (ic.topology == Topology::Hierarchical && p > ic.devices_per_node && p % ic.devices_per_node != 0)
    return "a hierarchical system of " + std::to_string(ic.devices_per_node) +
           " devices per node takes whole nodes, got " + ps + " learners";
  if (ic.topology == Topology::Torus2d) {
    int64_t side = 1;
    while (side * side < ic.max_learners) ++side;
    const TorusDims t = torus_dims(p);
    if (t.y > side)
      return "a torus2d of side " + std::to_string(side) + " has no " + std::to_string(t.x) + " x " +
             std::to_string(t.y) + " slice for " + ps + " learners";
  }
  if (ic.collective == Collective::HalvingDoubling && (p & (p - 1)) != 0)
    return "halving_doubling needs a power-of-two number of learners, got " + ps;
  return "";
}

double node_network_bytes_per_s(const InterconnectSpec& ic, int64_t flows) {
  double bw = ic.inter_node.bandwidth_bytes_per_s;
  if (ic.inter_node.flow_bandwidth_bytes_per_s > 0)
    bw = std::min(bw, static_cast<double>(flows) * ic.inter_node.flow_bandwidth_bytes_per_s);
  return bw * ic.inter_node.efficiency;
}

int64_t network_flows(const InterconnectSpec& ic, int64_t g) { return ic.collective == Collective::Ring ? 1 : g; }

double pipelined_ring_phase_s(int64_t steps, int64_t chunks, double chunk_s, double alpha_s) {
  if (steps <= 0) return 0.0;
  const double c = static_cast<double>(chunks);
  return static_cast<double>(steps - 1) * std::max(c * chunk_s, chunk_s + alpha_s) + c * chunk_s + alpha_s;
}

double ring_allreduce_s(int64_t p, double bytes, double alpha_s, double bandwidth) {
  if (p <= 1) return 0.0;
  const double pd = static_cast<double>(p);
  return 2.0 * (pd - 1.0) * (alpha_s + bytes / (pd * bandwidth));
}

namespace {

// Steps of one ring over `n` members moving `bytes` per member in total per step, chunked.
double ring_phase(const InterconnectSpec& ic, int64_t steps, double step_bytes, double alpha, double bw) {
  const double c = static_cast<double>(ic.chunks);
  return pipelined_ring_phase_s(steps, ic.chunks, step_bytes / c / bw, alpha);
}

double hierarchical_s(const InterconnectSpec& ic, int64_t p, double bytes) {
  const int64_t g = std::min<int64_t>(p, ic.devices_per_node);
  const int64_t nodes = p / g;
  const double gd = static_cast<double>(g), nd = static_cast<double>(nodes), c = static_cast<double>(ic.chunks);
  const double bw = ic.link_achieved_bytes_per_s() * static_cast<double>(ic.links_per_chip);
  const double in_node = ring_phase(ic, g - 1, bytes / gd, ic.link.latency_s, bw);
  double across = 0;
  if (nodes > 1) {
    // Each GPU's ring moves s = D/(g n) per step; the node's g rings share its NIC.
    const double s = bytes / (gd * nd) / c;
    const double net_bw = node_network_bytes_per_s(ic, network_flows(ic, g));
    const double chunk_s = std::max(gd * s / net_bw, s / bw);
    across = pipelined_ring_phase_s(2 * (nodes - 1), ic.chunks, chunk_s, ic.link.latency_s + ic.inter_node.latency_s);
  }
  return 2.0 * in_node + across;
}

// Flat ring over whole nodes (collective_analytic.h): the node-boundary hop paces every step.
double flat_ring_across_nodes_s(const InterconnectSpec& ic, int64_t p, double bytes) {
  const double c = static_cast<double>(ic.chunks), s = bytes / static_cast<double>(p) / c;
  const double dev_bw = ic.link_achieved_bytes_per_s() * static_cast<double>(ic.links_per_chip);
  const double chunk_s = std::max(s / dev_bw, s / node_network_bytes_per_s(ic, 1));
  return pipelined_ring_phase_s(2 * (p - 1), ic.chunks, chunk_s, ic.link.latency_s + ic.inter_node.latency_s);
}

}  // namespace

double allreduce_s(const InterconnectSpec& ic, int64_t p, double bytes) {
  if (p <= 1) return 0.0;
  const double link_bw = ic.link_achieved_bytes_per_s();
  const double a = ic.link.latency_s;
  const double pd = static_cast<double>(p);
  // Ring and torus use links_per_chip ring directions (each carries half); switch ports aggregate.
  const double dirs = static_cast<double>(ic.links_per_chip);
  switch (ic.collective) {
    case Collective::Ring:
      if (ic.topology == Topology::Hierarchical && p > ic.devices_per_node) return flat_ring_across_nodes_s(ic, p, bytes);
      return ring_phase(ic, 2 * (p - 1), bytes / (pd * dirs), a, link_bw);
    case Collective::HalvingDoubling: {
      const double bw = link_bw * dirs;
      const double log_p = std::ceil(std::log2(pd));
      return 2.0 * log_p * a + 2.0 * (pd - 1.0) / pd * bytes / bw;
    }
    case Collective::DoubleBinaryTree:
      return 2.0 * std::ceil(std::log2(pd)) * a + 2.0 * (pd - 1.0) / pd * bytes / (link_bw * dirs);
    case Collective::Torus2d: {
      const TorusDims t = torus_dims(p);
      const double xd = static_cast<double>(t.x), yd = static_cast<double>(t.y);
      const double along_x = ring_phase(ic, t.x - 1, bytes / (xd * dirs), a, link_bw);
      return 2.0 * along_x + ring_phase(ic, 2 * (t.y - 1), bytes / (xd * yd * dirs), a, link_bw);
    }
    case Collective::Hierarchical: return hierarchical_s(ic, p, bytes);
  }
  return 0.0;
}

double allreduce_bytes_per_chip(const InterconnectSpec& ic, int64_t p, double bytes) {
  if (p <= 1) return 0.0;
  const double pd = static_cast<double>(p);
  if (ic.collective == Collective::DoubleBinaryTree) return 2.0 * bytes;
  return 2.0 * (pd - 1.0) / pd * bytes;
}

double allreduce_dram_bytes_per_s(const InterconnectSpec& ic, int64_t p, double bytes, double seconds) {
  if (seconds <= 0) return 0.0;
  return ic.overlap.dram_bytes_per_byte * allreduce_bytes_per_chip(ic, p, bytes) / seconds;
}

}  // namespace kp
