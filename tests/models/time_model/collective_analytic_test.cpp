// Closed-form collectives against hand-computed values.
#include <gtest/gtest.h>

#include "sim/analytic/collective_analytic.h"

namespace kp {
namespace {

InterconnectSpec link(Collective c, Topology t) {
  InterconnectSpec ic;
  ic.collective = c;
  ic.topology = t;
  ic.link = {1e9, 1e-6};  // 1 GB/s, 1 us
  ic.max_learners = 4096;
  return ic;
}

}  // namespace

TEST(Collectives, RingIsTwoPMinusOneStepsOfDOverP) {
  // 2 * 3 * (1 us + 1e6 B / (4 * 1e9 B/s)) = 6 * 251 us
  EXPECT_NEAR(allreduce_s(link(Collective::Ring, Topology::Ring), 4, 1e6), 1.506e-3, 1e-12);
  EXPECT_EQ(allreduce_s(link(Collective::Ring, Topology::Ring), 1, 1e6), 0.0);
}

TEST(Collectives, HalvingDoubling) {
  // 2 log2(8) * 1 us + 2 * 7/8 * 1e6 / 1e9
  EXPECT_NEAR(allreduce_s(link(Collective::HalvingDoubling, Topology::Switch), 8, 1e6), 6e-6 + 1.75e-3, 1e-12);
}

TEST(Collectives, DoubleBinaryTree) {
  // Pipelined limit on one full-duplex port: 2 ceil(log2 16) a + 2 (15/16) D/B (each chip sends ~2D).
  EXPECT_NEAR(allreduce_s(link(Collective::DoubleBinaryTree, Topology::Switch), 16, 1e6), 8e-6 + 1.875e-3, 1e-12);
}

TEST(Collectives, ChunkedRingPipelines) {
  InterconnectSpec ic = link(Collective::Ring, Topology::Ring);
  ic.chunks = 4;
  // P = 4, D = 1 MB: R = 6 steps, s = D/(4*4) = 62.5 kB per chunk, s/B = 62.5 us > a: the link never
  // idles, T = (R-1) C s/B + C s/B + a = 6 * 250 us + 1 us.
  EXPECT_NEAR(allreduce_s(ic, 4, 1e6), 6 * 250e-6 + 1e-6, 1e-12);
  // Latency-bound: s/B = 0.0625 us < a; T = (R-1)(s/B + a) + C s/B + a.
  EXPECT_NEAR(allreduce_s(ic, 4, 1e3), 5 * (0.0625e-6 + 1e-6) + 0.25e-6 + 1e-6, 1e-15);
}

TEST(Collectives, LearnerCountsEachTopologyTakes) {
  InterconnectSpec ic = link(Collective::HalvingDoubling, Topology::Switch);
  EXPECT_EQ(learners_problem(ic, 8), "");
  EXPECT_EQ(learners_problem(ic, 12), "halving_doubling needs a power-of-two number of learners, got 12");
  EXPECT_EQ(learners_problem(ic, 5000), "expected at most 4096 learners (interconnect.max_learners), got 5000");
}

TEST(Collectives, Torus2dIsRingAlongXThenY) {
  // 4 x 4: ring(4, D) + ring(4, D/4)
  const double expect = 6 * (1e-6 + 1e6 / 4e9) + 6 * (1e-6 + 0.25e6 / 4e9);
  EXPECT_NEAR(allreduce_s(link(Collective::Torus2d, Topology::Torus2d), 16, 1e6), expect, 1e-12);
  EXPECT_EQ(torus_dims(32).x, 4);
  EXPECT_EQ(torus_dims(32).y, 8);
}

TEST(Collectives, HierarchicalSharesTheNodeNic) {
  InterconnectSpec ic = link(Collective::Hierarchical, Topology::Hierarchical);
  ic.devices_per_node = 4;
  ic.inter_node = {6.25e9 / 8, 30e-6};  // 6.25 Gb/s... per node, 30 us
  // 8 learners = 2 nodes: reduce-scatter + all-gather in node 2*3*(1us + D/(4B)); across nodes a
  // 2-node ring per GPU on D/4, the 4 rings sharing the NIC: each step moves 4 x D/(4*2) through it
  // and crosses PCIe (1 us) and the network (30 us).
  const double in_node = 2 * 3 * (1e-6 + 1e6 / 4e9);
  const double across = 2 * 1 * (31e-6 + 1e6 / (2 * ic.inter_node.bandwidth_bytes_per_s));
  EXPECT_NEAR(allreduce_s(ic, 8, 1e6), in_node + across, 1e-12);
}

}  // namespace kp
