#include "sim/systemc/net/net_topology.h"

#include <stdexcept>

namespace kp {

void NetTopology::add(int32_t from, int32_t to, double bw, double alpha) {
  m_links.push_back(NetLink{from, to, bw, alpha});
}

NetTopology::NetTopology(const InterconnectSpec& ic, int64_t p) : m_kind(ic.topology), m_p(p) {
  const std::string problem = learners_problem(ic, p);
  if (!problem.empty()) throw std::invalid_argument(problem);
  const double bw = ic.link_achieved_bytes_per_s();
  const double a = ic.link.latency_s;
  const auto n = static_cast<int32_t>(p);
  switch (m_kind) {
    case Topology::Ring:  // ids: dir * P + i
      for (int32_t i = 0; i < n; ++i) add(i, (i + 1) % n, bw, a);
      for (int32_t i = 0; i < n; ++i) add(i, (i + n - 1) % n, bw, a);
      break;
    case Topology::Torus2d: {  // ids: dir * P + i, dir = X+, X-, Y+, Y-
      m_torus = torus_dims(p);
      const auto x = static_cast<int32_t>(m_torus.x), y = static_cast<int32_t>(m_torus.y);
      for (int32_t d = 0; d < 4; ++d)
        for (int32_t i = 0; i < n; ++i) {
          const int32_t ix = i % x, iy = i / x, s = d % 2 == 0 ? 1 : -1;
          const int32_t to = d < 2 ? iy * x + (ix + s + x) % x : ((iy + s + y) % y) * x + ix;
          add(i, to, bw, a);
        }
      break;
    }
    case Topology::Switch: {  // ids: up i, then down P + i; the switch is node P
      const double port = bw * static_cast<double>(ic.links_per_chip);
      for (int32_t i = 0; i < n; ++i) add(i, n, port, a);
      for (int32_t i = 0; i < n; ++i) add(n, i, port, 0.0);
      break;
    }
    case Topology::Hierarchical: {
      // ids: device up i, device down P + i, NIC up 2P + k, NIC down 2P + nodes + k;
      // host switch of node k is node P + k, the network switch is node P + nodes.
      m_g = std::min<int64_t>(p, ic.devices_per_node);
      const auto g = static_cast<int32_t>(m_g), nodes = n / g;
      const double dev = bw * static_cast<double>(ic.links_per_chip);
      const double net = node_network_bytes_per_s(ic, network_flows(ic, m_g));
      for (int32_t i = 0; i < n; ++i) add(i, n + i / g, dev, a);
      for (int32_t i = 0; i < n; ++i) add(n + i / g, i, dev, 0.0);
      for (int32_t k = 0; k < nodes; ++k) add(n + k, n + nodes, net, ic.inter_node.latency_s);
      for (int32_t k = 0; k < nodes; ++k) add(n + nodes, n + k, net, 0.0);
      break;
    }
  }
}

int32_t NetTopology::ring_step(int64_t from, int64_t to, int64_t n, int dir_hint) const {
  const int64_t fwd = ((to - from) % n + n) % n;
  if (2 * fwd < n) return 1;
  if (2 * fwd > n) return -1;
  return dir_hint == 0 ? 1 : -1;
}

int32_t NetTopology::next_link(int32_t node, int32_t dst, int dir_hint) const {
  const auto n = static_cast<int32_t>(m_p);
  switch (m_kind) {
    case Topology::Ring: return ring_step(node, dst, n, dir_hint) > 0 ? node : n + node;
    case Topology::Torus2d: {
      const int64_t x = m_torus.x;
      if (node % x != dst % x) return (ring_step(node % x, dst % x, x, dir_hint) > 0 ? 0 : n) + node;
      return (ring_step(node / x, dst / x, m_torus.y, dir_hint) > 0 ? 2 * n : 3 * n) + node;
    }
    case Topology::Switch: return node < n ? node : n + dst;
    case Topology::Hierarchical: {
      const auto g = static_cast<int32_t>(m_g), nodes = n / g;
      if (node < n) return node;                               // device -> its host switch
      if (node == n + nodes) return 2 * n + nodes + dst / g;   // network switch -> NIC down
      if (node - n == dst / g) return n + dst;                 // host switch -> device
      return 2 * n + (node - n);                               // host switch -> NIC up
    }
  }
  throw std::logic_error("NetTopology::next_link: unknown topology");
}

int32_t NetTopology::orbit(int32_t id) const {
  const auto n = static_cast<int32_t>(m_p);
  if (m_kind != Topology::Hierarchical) return (id / n) * n;
  const auto g = static_cast<int32_t>(m_g);
  if (id < 2 * n) return (id / n) * n + (id % n) % g;
  const int32_t nodes = n / g;
  return id < 2 * n + nodes ? 2 * n : 2 * n + nodes;
}

std::string NetTopology::link_name(int32_t id) const {
  const NetLink& l = link(id);
  const auto n = static_cast<int32_t>(m_p);
  auto node = [&](int32_t v) -> std::string {
    if (v < n) return "chip " + std::to_string(v);
    if (m_kind == Topology::Switch) return "switch";
    const auto nodes = static_cast<int32_t>(m_p / m_g);
    return v - n < nodes ? "node " + std::to_string(v - n) + " host" : "network";
  };
  if (m_kind == Topology::Hierarchical && l.from >= n && l.to >= n) {  // a NIC
    const bool up = l.to == n + static_cast<int32_t>(m_p / m_g);
    return "node " + std::to_string((up ? l.from : l.to) - n) + " NIC " + (up ? "up" : "down");
  }
  return node(l.from) + " -> " + node(l.to);
}

}  // namespace kp
