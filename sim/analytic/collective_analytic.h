#pragma once
// Closed-form all-reduce time (alpha-beta model), per collective, for P learners and D bytes.
// Contract: contention-free; every link runs at bandwidth * efficiency; P = 1 costs nothing.
//   ring:               2(P-1) (a + D/(P B))                          (Patarasuk & Yuan 2009)
//   halving_doubling:   2 log2(P) a + 2 (P-1)/P D/B                    (Thakur et al. 2005)
//   double_binary_tree: 2 ceil(log2 P) a + D/B  (two trees, each half the data, pipelined; NCCL)
//   torus2d:            ring along X on D, then along Y on D/X          (ASTRA-sim per dimension)
//   hierarchical:       reduce-scatter in node, ring across nodes on D per node sharing the NIC,
//                       all-gather in node
#include <cstdint>

#include "core/hw_spec.h"

namespace kp {

struct TorusDims {
  int64_t x = 1, y = 1;
};
// The most square X x Y = P (X <= Y); used by the torus2d topology.
TorusDims torus_dims(int64_t learners);

double ring_allreduce_s(int64_t learners, double bytes, double alpha_s, double bandwidth);
double allreduce_s(const InterconnectSpec& ic, int64_t learners, double bytes);
// Bytes one chip sends over its links for one all-reduce (for link energy).
double allreduce_bytes_per_chip(const InterconnectSpec& ic, int64_t learners, double bytes);

}  // namespace kp
