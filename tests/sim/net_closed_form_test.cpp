// SystemC interconnect vs closed forms where no link carries two transfers at once: equal (to
// rounding), and the exact symmetry shortcut equal to simulating every learner.
#include <gtest/gtest.h>

#include "sim/analytic/collective_analytic.h"
#include "sim/systemc/net/net_runner.h"
#include "sim/systemc/net/net_topology.h"
#include "sim/systemc/sc_trace.h"

namespace kp {
namespace {

constexpr double kB = 1e9, kAlpha = 2e-6, kD = 8e6;  // 1 GB/s, 2 us, 8 MB

InterconnectSpec spec(Topology t, Collective c, int64_t chunks = 1, int64_t links = 1) {
  InterconnectSpec ic;
  ic.topology = t, ic.collective = c, ic.chunks = chunks, ic.links_per_chip = links;
  ic.link = {kB, kAlpha};
  ic.inter_node = {0.5 * kB, 10e-6};
  ic.max_learners = 4096;
  return ic;
}

double sim(const InterconnectSpec& ic, int64_t p, double bytes = kD, bool symmetric = false) {
  return run_net_sc_forked({NetJob{ic, p, bytes, symmetric}}).at(0).seconds;
}

void expect_same(double got, double want) { EXPECT_NEAR(got, want, 1e-12 * want + 1e-15) << got << " vs " << want; }

}  // namespace

TEST(NetClosedForm, RingOnRingIsTwoPMinusOneStepsOfDOverP) {
  const InterconnectSpec ic = spec(Topology::Ring, Collective::Ring);
  // 2 (P-1) (alpha + D/(P B)) with P = 8: 14 * (2 us + 1 ms)
  expect_same(sim(ic, 8), 14 * (kAlpha + kD / (8 * kB)));
  expect_same(allreduce_s(ic, 8, kD), 14 * (kAlpha + kD / (8 * kB)));
  expect_same(sim(ic, 1), 0.0);
}

TEST(NetClosedForm, ChunkedAndBidirectionalRingsEqualThePipelinedForm) {
  for (int64_t chunks : {2, 5})
    for (int64_t links : {1, 2}) {
      const InterconnectSpec ic = spec(Topology::Ring, Collective::Ring, chunks, links);
      expect_same(sim(ic, 6), allreduce_s(ic, 6, kD));
    }
  // Latency-bound chunks (alpha > s/B): the pipeline idles between steps; T = (R-1)(s/B+a) + C s/B + a.
  InterconnectSpec ic = spec(Topology::Ring, Collective::Ring, 4);
  const double s = 4e3 / (4 * 4), r = 6;  // 4 kB on P = 4: s = 250 B per chunk
  expect_same(sim(ic, 4, 4e3), (r - 1) * (s / kB + kAlpha) + 4 * s / kB + kAlpha);
}

TEST(NetClosedForm, HalvingDoublingOnASwitch) {
  const InterconnectSpec ic = spec(Topology::Switch, Collective::HalvingDoubling);
  expect_same(sim(ic, 8), 2 * 3 * kAlpha + 2.0 * 7 / 8 * kD / kB);
  expect_same(sim(ic, 8), allreduce_s(ic, 8, kD));
}

TEST(NetClosedForm, RingOnASwitch) {
  const InterconnectSpec ic = spec(Topology::Switch, Collective::Ring, 3, 2);  // two rails aggregate
  expect_same(sim(ic, 5), allreduce_s(ic, 5, kD));
}

TEST(NetClosedForm, Torus2dDimensionByDimension) {
  const InterconnectSpec one = spec(Topology::Torus2d, Collective::Torus2d);
  // 4 x 4: reduce-scatter X (3 steps of D/4), all-reduce Y on D/4 (6 steps of D/16), all-gather X.
  expect_same(sim(one, 16), 6 * (kAlpha + kD / 4 / kB) + 6 * (kAlpha + kD / 16 / kB));
  for (int64_t p : {12, 16, 6})
    for (int64_t chunks : {1, 3}) {
      const InterconnectSpec ic = spec(Topology::Torus2d, Collective::Torus2d, chunks, 2);
      expect_same(sim(ic, p), allreduce_s(ic, p, kD));
    }
}

TEST(NetClosedForm, HierarchicalWithOneDevicePerNodeSharesNothing) {
  for (int64_t chunks : {1, 4}) {
    InterconnectSpec ic = spec(Topology::Hierarchical, Collective::Hierarchical, chunks);
    ic.devices_per_node = 1;
    // Across nodes every step crosses PCIe up (2 us), NIC (10 us), NIC, PCIe down at min(B) = 0.5 GB/s.
    if (chunks == 1) expect_same(sim(ic, 4), 6 * (kAlpha + 10e-6 + kD / 4 / (0.5 * kB)));
    expect_same(sim(ic, 4), allreduce_s(ic, 4, kD));
  }
  // A per-flow cap (one TCP flow per ring): one GPU per node gets 0.1 GB/s of the 0.5 GB/s NIC.
  InterconnectSpec capped = spec(Topology::Hierarchical, Collective::Hierarchical);
  capped.devices_per_node = 1;
  capped.inter_node.flow_bandwidth_bytes_per_s = 0.1 * kB;
  EXPECT_DOUBLE_EQ(node_network_bytes_per_s(capped, 1), 0.1 * kB);
  EXPECT_DOUBLE_EQ(node_network_bytes_per_s(capped, 8), 0.5 * kB);
  expect_same(sim(capped, 4), 6 * (kAlpha + 10e-6 + kD / 4 / (0.1 * kB)));
  expect_same(allreduce_s(capped, 4, kD), 6 * (kAlpha + 10e-6 + kD / 4 / (0.1 * kB)));
  InterconnectSpec one_node = spec(Topology::Hierarchical, Collective::Hierarchical, 2);
  one_node.devices_per_node = 4;  // P = 4: one node, rings over PCIe only
  expect_same(sim(one_node, 4), allreduce_s(one_node, 4, kD));
}

// NCCL's flat ring on a two-level fabric: 2(P-1) steps of D/P; the node-boundary hop (PCIe up,
// NIC, NIC, PCIe down, one TCP flow) paces every step. Contention-free: each NIC carries one
// transfer per direction per step.
TEST(NetClosedForm, FlatRingAcrossNodesIsPacedByTheNodeBoundary) {
  InterconnectSpec ic = spec(Topology::Hierarchical, Collective::Ring);
  ic.devices_per_node = 4;
  ic.inter_node.flow_bandwidth_bytes_per_s = 0.2 * kB;  // one flow: 0.2 of the 0.5 GB/s NIC
  ic.inter_node.efficiency = 0.5;                       // the network's own factor: 0.1 GB/s
  EXPECT_DOUBLE_EQ(node_network_bytes_per_s(ic, network_flows(ic, 4)), 0.1 * kB);
  // 2 nodes x 4: 14 steps of alpha + 10 us + (D/8) / 0.1 GB/s.
  expect_same(allreduce_s(ic, 8, kD), 14 * (kAlpha + 10e-6 + kD / 8 / (0.1 * kB)));
  for (int64_t p : {8, 12})
    for (int64_t chunks : {1, 3}) {
      ic.chunks = chunks;
      expect_same(sim(ic, p), allreduce_s(ic, p, kD));
    }
  // Inside one node the ring never reaches the NIC: 2(P-1) steps of alpha + (D/P)/B_link.
  ic.chunks = 1;
  expect_same(allreduce_s(ic, 4, kD), 6 * (kAlpha + kD / 4 / kB));
  expect_same(sim(ic, 4), allreduce_s(ic, 4, kD));
}

// Tracing: every hop is one span on a real link, with its collective step. Ring of 4, one
// direction: 6 steps x 4 transfers, one hop each, back to back on each link.
TEST(NetTrace, SpansCoverEveryHopWithItsStep) {
  const InterconnectSpec ic = spec(Topology::Ring, Collective::Ring);
  std::vector<std::vector<NetSpan>> spans;
  const auto r = run_net_sc_forked({NetJob{ic, 4, kD, false}}, &spans);
  ASSERT_EQ(spans.size(), 1u);
  ASSERT_EQ(spans[0].size(), 24u);
  std::vector<int> per_step(6, 0);
  for (const NetSpan& s : spans[0]) {
    EXPECT_GE(s.link, 0);
    EXPECT_LT(s.link, 4);  // the "+" direction only
    ++per_step.at(static_cast<size_t>(s.step));
    EXPECT_NEAR(s.end_s - s.start_s, kD / 4 / kB, 1e-15);
    EXPECT_LE(s.end_s, r[0].seconds);
  }
  EXPECT_EQ(per_step, std::vector<int>(6, 4));
  InterconnectSpec h = spec(Topology::Hierarchical, Collective::Ring);
  h.devices_per_node = 4;
  const NetTopology topo(h, 8);
  EXPECT_EQ(topo.link_name(0), "chip 0 -> node 0 host");
  EXPECT_EQ(topo.link_name(8 + 5), "node 1 host -> chip 5");
  EXPECT_EQ(topo.link_name(16 + 1), "node 1 NIC up");
  EXPECT_EQ(topo.link_name(18 + 0), "node 0 NIC down");
}

TEST(NetTrace, MergedTimelineKeepsBothDocumentsEvents) {
  const std::string chip = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[{\"a\":1}]}";
  const std::string none = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[]}";
  const std::string net = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[{\"b\":[2]}]}";
  EXPECT_EQ(merge_trace_json(chip, net), "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[{\"a\":1},{\"b\":[2]}]}");
  EXPECT_EQ(merge_trace_json(none, net), net);
  EXPECT_EQ(merge_trace_json(chip, none), chip);
}

TEST(NetClosedForm, DoubleBinaryTreeOnTwoLearners) {
  // P = 2: each tree is one edge; reduce then broadcast, D/2 each, never on the same port at once.
  const InterconnectSpec ic = spec(Topology::Switch, Collective::DoubleBinaryTree);
  expect_same(sim(ic, 2), 2 * kAlpha + kD / kB);
  expect_same(allreduce_s(ic, 2, kD), 2 * kAlpha + kD / kB);
}

TEST(NetSymmetry, RepresentativesEqualEveryLearner) {
  InterconnectSpec hier = spec(Topology::Hierarchical, Collective::Hierarchical, 2);
  hier.devices_per_node = 4;
  const std::vector<std::pair<InterconnectSpec, int64_t>> cases = {
      {spec(Topology::Ring, Collective::Ring, 3, 2), 8},       {spec(Topology::Torus2d, Collective::Torus2d, 2, 2), 16},
      {spec(Topology::Switch, Collective::HalvingDoubling), 8}, {spec(Topology::Switch, Collective::Ring, 2), 5},
      {hier, 12}};
  for (const auto& [ic, p] : cases) {
    const auto r = run_net_sc_forked({NetJob{ic, p, kD, false}, NetJob{ic, p, kD, true}});
    expect_same(r[1].seconds, r[0].seconds);
    EXPECT_LT(r[1].transfers, r[0].transfers) << topology_name(ic.topology);
  }
}

}  // namespace kp
