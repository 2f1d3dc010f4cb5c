#pragma once
// One all-reduce as a dependency graph of point-to-point transfers, for the SystemC interconnect.
// Contract: a transfer may start when every transfer it depends on has arrived; the all-reduce
// ends when the last transfer arrives. Each collective step is split into ic.chunks chunks (except
// halving_doubling: one message per step, as in Thakur et al. 2005); chunk c of step k waits only
// for chunk c of step k-1 (its own send and the receive from its peer), so chunks pipeline. A new
// phase (torus2d: the next dimension; hierarchical: in node / across nodes / in node) waits for all
// chunks of the previous one (dimension by dimension). Collectives:
//   ring: 2(P-1) steps of D/(P C L) per chunk, L = links_per_chip ring directions (ring/torus
//     topologies; on a switch or hierarchical fabric L = 1 and the ports aggregate instead)
//   halving_doubling: reduce-scatter by recursive halving (partner i^(P/2), i^(P/4), ..., blocks
//     D/2, D/4, ..., D/P), then all-gather by recursive doubling in reverse
//   double_binary_tree (Sanders et al. 2009, NCCL): two binary trees each reducing and
//     broadcasting half of D; tree A is heap-ordered (parent (i-1)/2), tree B the mirror image
//     (rank i at heap position P-1-i), so the inner ranks of one tree are leaves of the other
//   torus2d: ring reduce-scatter along X (D/X per step), ring all-reduce along Y on D/X,
//     ring all-gather along X
//   hierarchical: ring reduce-scatter in node (D/g), ring all-reduce across nodes of the
//     node's shard (each GPU with its peers, D/(g n) per step), ring all-gather in node
//
// Symmetry (`symmetric`): for ring on a ring, torus2d on a torus2d, ring or halving_doubling on a
// switch, and hierarchical on a hierarchical fabric, the topology's translation group maps the
// transfer pattern onto itself and acts freely on the learners (or nodes) and on each link class
// (NetTopology::orbit). Every learner then sees the same event times as its representative, and each
// real link of a class sees, at the same times, exactly the transfers the representative's routes put
// on that class. Simulating only the representatives (learner 0, or node 0's devices), with links
// merged into their classes and "receive from peer q" replaced by the same step of q's
// representative, is therefore exact, not an approximation; the tests check it against full runs.
// Other pairs (halving_doubling on a ring, trees, rings on torus or hierarchical fabrics) are simulated
// with every learner.
#include <cstdint>
#include <vector>

#include "core/hw_spec.h"
#include "sim/systemc/net/net_topology.h"

namespace kp {

struct NetTransfer {
  int32_t src = 0, dst = 0;
  int32_t dir = 0;  // ring direction hint for distance-P/2 ties
  double bytes = 0;
  int32_t step = 0;  // collective step (trees: 0/1 reduce/broadcast of tree A, 2/3 of tree B)
};

struct CollectiveDag {
  std::vector<NetTransfer> transfers;
  std::vector<int32_t> deps;          // unmet dependencies of each transfer
  std::vector<int64_t> next_begin;    // CSR: transfers waiting on transfer t are
  std::vector<int32_t> next;          //   next[next_begin[t] .. next_begin[t+1])
  int64_t represented = 0;            // learners simulated (P, or the representatives)
};

bool symmetric_allowed(const InterconnectSpec& ic);
// `senders` independent transfers of `bytes` each, device i to device i + senders (the stage-to-
// stage activations of a pipeline: the devices of one node to the same slots of the next).
CollectiveDag point_to_point_dag(int64_t senders, double bytes);

// `symmetric` is honoured only where symmetric_allowed(); throws std::invalid_argument on a bad P.
// `stride` > 1: `stride` all-reduces at once, one per group of the learners i with the same
// i mod stride (the data-parallel groups beside tensor parallelism: each node holds
// devices_per_node / stride members of every group); ring and hierarchical collectives only.
// Each group's steps are its own collective's (P / stride members; in node g / stride), and the
// groups share whatever links their routes share.
CollectiveDag build_collective_dag(const InterconnectSpec& ic, const NetTopology& topo, double bytes, bool symmetric,
                                   int64_t stride = 1);

}  // namespace kp
