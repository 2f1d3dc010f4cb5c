// Where the SystemC interconnect and the closed forms differ: links shared by several transfers.
// Expected values are worked out by hand from the link model in net_engine.h.
#include <gtest/gtest.h>

#include <stdexcept>

#include "sim/analytic/collective_analytic.h"
#include "sim/systemc/net/net_runner.h"

namespace kp {
namespace {

constexpr double kB = 1e9, kAlpha = 2e-6, kD = 8e6;

InterconnectSpec spec(Topology t, Collective c) {
  InterconnectSpec ic;
  ic.topology = t, ic.collective = c;
  ic.link = {kB, kAlpha};
  ic.max_learners = 64;
  return ic;
}

double sim(const InterconnectSpec& ic, int64_t p) { return run_net_sc_forked({NetJob{ic, p, kD, true}}).at(0).seconds; }

}  // namespace

TEST(NetContention, HalvingDoublingOnARingSharesLinks) {
  // P = 4 on a ring: the distance-2 exchanges (blocks D/2) take two hops, and every "+" link carries
  // its own device's first hop and its neighbour's second hop: 2 s/B + alpha instead of s/B + alpha
  // (alpha < s/B). The distance-1 steps (D/4) are contention-free. Closed form: 4 a + 1.5 D/B.
  const InterconnectSpec ic = spec(Topology::Ring, Collective::HalvingDoubling);
  const double half = kD / 2 / kB, quarter = kD / 4 / kB;
  EXPECT_NEAR(sim(ic, 4), 2 * (2 * half + kAlpha) + 2 * (quarter + kAlpha), 1e-12);
  EXPECT_NEAR(allreduce_s(ic, 4, kD), 4 * kAlpha + 1.5 * kD / kB, 1e-12);
}

TEST(NetContention, GpusSharingANicHideEachOthersLatency) {
  // 2 nodes x 2 GPUs, PCIe with no latency and 1000x the NIC bandwidth, so only the NIC matters.
  // Across nodes each GPU's ring moves s = D/4 per step; the two rings share the NIC.
  // Closed form: 2 steps of alpha + 2 s/B (both GPUs' chunks serialised, then the latency).
  // SystemC: step 1 ends at alpha + s/B (GPU 0) and alpha + 2 s/B (GPU 1); GPU 0's second step
  // starts while GPU 1's first is still in flight, so one s/B of the second step hides behind the
  // other ring's latency (alpha >= s/B here): 2 alpha + 3 s/B.
  InterconnectSpec ic = spec(Topology::Hierarchical, Collective::Hierarchical);
  ic.devices_per_node = 2;
  ic.link = {1e3 * kB, 0.0};
  const double alpha = 5e-3, s = kD / 4 / kB;  // s/B = 2 ms
  ic.inter_node = {kB, alpha};
  const double in_node = 2 * (kD / 2 / ic.link.bandwidth_bytes_per_s);  // reduce-scatter + all-gather
  EXPECT_NEAR(sim(ic, 4), 2 * alpha + 3 * s + in_node, 1e-9);
  EXPECT_NEAR(allreduce_s(ic, 4, kD), 2 * (alpha + 2 * s) + in_node, 1e-9);
}

TEST(NetContention, DoubleBinaryTreePortsSerialise) {
  // P = 8 on a switch: an inner rank receives from two children on its one down port and sends to
  // two on its up port, and the second tree's traffic shares the same ports. The closed form is the
  // pipelined limit; one chunk cannot pipeline, so SystemC is slower.
  const InterconnectSpec ic = spec(Topology::Switch, Collective::DoubleBinaryTree);
  const double s = sim(ic, 8), a = allreduce_s(ic, 8, kD);
  EXPECT_GT(s, a * 1.5);
  // Lower bound: the busiest port carries 2 D (two trees, reduce and broadcast).
  const auto r = run_net_sc_forked({NetJob{ic, 8, kD, false}}).at(0);
  EXPECT_NEAR(r.busiest_link_s, 2 * kD / kB, 1e-12);
  EXPECT_GE(s, r.busiest_link_s);
}

TEST(NetContention, LearnerCountsTheTopologyCannotTakeAreErrors) {
  InterconnectSpec hd = spec(Topology::Switch, Collective::HalvingDoubling);
  EXPECT_THROW(run_net_sc_forked({NetJob{hd, 6, kD, true}}), std::invalid_argument);
  InterconnectSpec hier = spec(Topology::Hierarchical, Collective::Hierarchical);
  hier.devices_per_node = 4;
  EXPECT_EQ(learners_problem(hier, 6), "a hierarchical system of 4 devices per node takes whole nodes, got 6 learners");
  InterconnectSpec torus = spec(Topology::Torus2d, Collective::Torus2d);  // 8 x 8 machine
  EXPECT_EQ(learners_problem(torus, 11), "a torus2d of side 8 has no 1 x 11 slice for 11 learners");
  EXPECT_EQ(learners_problem(torus, 65), "expected at most 64 learners (interconnect.max_learners), got 65");
  EXPECT_EQ(learners_problem(torus, 48), "");
}

}  // namespace kp
