#pragma once
// Closed-form all-reduce time (alpha-beta model), per collective, for P learners and D bytes, with
// every collective step split into C = ic.chunks pieces that pipeline over the links.
// Contract: exact for the SystemC interconnect (sim/systemc/net/) wherever no link carries two
// transfers at once; every link runs at bandwidth * efficiency; P = 1 costs nothing.
// A phase of R ring steps of s bytes per chunk on one link (alpha, B), chunks pipelined:
//   T(R, s, C) = (R-1) max(C s/B, s/B + alpha) + C s/B + alpha      (C = 1: R (alpha + s/B))
//   ring:               T(2(P-1), D/(P C L), C), L = links_per_chip directions     (Patarasuk & Yuan 2009)
//   halving_doubling:   sum over 2 log2 P steps of alpha + D_k/B, D_k = D/2 ... D/P (Thakur et al. 2005);
//                       each step is one message (no chunking); P must be a power of two
//   double_binary_tree: 2 ceil(log2 P) alpha + 2 (P-1)/P D/B: the pipelined limit with one
//                       full-duplex port per chip (every chip sends ~2D over both trees; NCCL);
//                       not contention-free for P > 2, the SystemC model is the reference there
//   torus2d:            reduce-scatter along X, all-reduce along Y on D/X, all-gather along X, one
//                       dimension after the other (ASTRA-sim's dimension-by-dimension scheme)
//   hierarchical:       reduce-scatter in node (PCIe/NVLink), ring across nodes on D/g per GPU with the
//                       g rings sharing the node NIC (one step: alpha_link + alpha_net + max(g s/B_net,
//                       s/B_link)), all-gather in node
//   ring on a hierarchical topology: NCCL's flat ring through all P = g n devices, node after node
//                       (NCCL ring all-reduce; NVIDIA/nccl issue #209: each inter-node link carries
//                       (P-1)/P D per phase). 2(P-1) steps of s = D/(P C); a node boundary is crossed
//                       by one connection (one TCP flow) per direction, so every step takes
//                       T(2(P-1), s, C) with s/B = max(s/B_link, s/B_net(1 flow)), alpha = alpha_link +
//                       alpha_net: the boundary hop is the slowest and every ring step waits for it.
#include <cstdint>
#include <string>

#include "core/hw_spec.h"

namespace kp {

struct TorusDims {
  int64_t x = 1, y = 1;
};
// The most square X x Y = P (X <= Y); used by the torus2d topology.
TorusDims torus_dims(int64_t learners);

// Why P learners do not fit this interconnect ("" when they do): P > max_learners, a hierarchical
// P that is not whole nodes, a torus2d whose longer side exceeds the machine's side, a
// halving_doubling P that is not a power of two.
std::string learners_problem(const InterconnectSpec& ic, int64_t learners);

// Bandwidth of one node's network link carrying `flows` TCP flows: the NIC (inter_node.bandwidth),
// capped at flows x inter_node.flow_bandwidth (clouds cap a single flow, e.g. AWS 10 Gb/s inside a
// cluster placement group), times inter_node.efficiency. Both fidelities use it for the NIC links.
double node_network_bytes_per_s(const InterconnectSpec& ic, int64_t flows);
// TCP flows one node's NIC carries per direction in ic.collective: g for the hierarchical collective
// (one ring across nodes per device), 1 for a flat ring (one connection at each node boundary).
int64_t network_flows(const InterconnectSpec& ic, int64_t devices_per_node);

// T(R, s, C) above, with per-chunk service time `chunk_s` (= s/B).
double pipelined_ring_phase_s(int64_t steps, int64_t chunks, double chunk_s, double alpha_s);
double ring_allreduce_s(int64_t learners, double bytes, double alpha_s, double bandwidth);
double allreduce_s(const InterconnectSpec& ic, int64_t learners, double bytes);
// Bytes one chip sends over its links for one all-reduce (for link energy).
double allreduce_bytes_per_chip(const InterconnectSpec& ic, int64_t learners, double bytes);
// Device-memory bytes/s one chip's part of that all-reduce moves when it takes `seconds`:
// interconnect.overlap.dram_bytes_per_byte x the bytes it sends, spread evenly (0 when seconds <= 0).
double allreduce_dram_bytes_per_s(const InterconnectSpec& ic, int64_t learners, double bytes, double seconds);

}  // namespace kp
