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
  EXPECT_NEAR(allreduce_s(link(Collective::DoubleBinaryTree, Topology::Switch), 16, 1e6), 8e-6 + 1e-3, 1e-12);
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
  // 8 learners = 2 nodes: reduce-scatter + all-gather in node 2*3*(1us + D/(4B)), ring of 2 nodes on D.
  const double in_node = 2 * 3 * (1e-6 + 1e6 / 4e9);
  const double across = 2 * 1 * (30e-6 + 1e6 / (2 * ic.inter_node.bandwidth_bytes_per_s));
  EXPECT_NEAR(allreduce_s(ic, 8, 1e6), in_node + across, 1e-12);
}

}  // namespace kp
