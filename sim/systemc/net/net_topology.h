#pragma once
// The physical interconnect of P learners, built from an InterconnectSpec: nodes (devices first,
// then switches) joined by one-directional links, and a deterministic routing function.
//   ring:         device i -> i+1 ("+" link) and i -> i-1 ("-" link), shortest direction
//   torus2d:      X x Y = torus_dims(P) with wrap-around, links X+, X-, Y+, Y- per device,
//                 dimension-order routing (X first), shortest direction per dimension
//   switch:       one non-blocking switch; device i has an up and a down port
//                 (bandwidth x links_per_chip: the ports of a multi-rail NIC aggregate)
//   hierarchical: devices_per_node devices on a node's host switch (PCIe/NVLink, per-device up and
//                 down link), the host switch on the node NIC (up and down), NICs on one network
//                 switch; a transfer to another node crosses device link, NIC, NIC, device link
// Latency: the spec's alpha sits on the link that leaves a device (link.latency) or a node
// (inter_node.latency); links into a device or node add none, so a one-hop transfer costs
// alpha + bytes/B as the closed forms assume. A ring direction tie (distance P/2) goes the way of
// the transfer's direction hint, so the two rings of links_per_chip = 2 use separate links.
// Symmetry: orbit(link) maps a link to the representative of its class under the translation
// group of the topology (ring/torus: all links of one direction; switch: all up / all down ports;
// hierarchical: the same device slot or NIC of node 0). See collective_dag.h for when that is exact.
#include <cstdint>
#include <string>
#include <vector>

#include "core/hw_spec.h"
#include "sim/analytic/collective_analytic.h"

namespace kp {

struct NetLink {
  int32_t from = 0, to = 0;
  double bytes_per_s = 0, latency_s = 0;
};

class NetTopology {
 public:
  // Throws std::invalid_argument with learners_problem()'s text when P does not fit.
  NetTopology(const InterconnectSpec& ic, int64_t learners);

  // The link a transfer at `node` bound for device `dst` takes next (node != dst).
  int32_t next_link(int32_t node, int32_t dst, int dir_hint) const;
  int32_t orbit(int32_t link) const;
  // A readable name for a link (trace tracks), e.g. "chip 3 -> chip 4", "node 1 NIC up".
  std::string link_name(int32_t link) const;
  const NetLink& link(int32_t id) const { return m_links[static_cast<size_t>(id)]; }
  int64_t link_count() const { return static_cast<int64_t>(m_links.size()); }
  int64_t learners() const { return m_p; }
  TorusDims torus() const { return m_torus; }
  int64_t devices_per_node() const { return m_g; }
  Topology kind() const { return m_kind; }

 private:
  int32_t ring_step(int64_t from, int64_t to, int64_t n, int dir_hint) const;  // +1 or -1
  void add(int32_t from, int32_t to, double bw, double alpha);

  Topology m_kind;
  int64_t m_p, m_g = 1;
  TorusDims m_torus;
  std::vector<NetLink> m_links;
};

}  // namespace kp
