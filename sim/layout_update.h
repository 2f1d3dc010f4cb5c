#pragma once
// T_update of one step under a parallel layout (core/layout_spec.h): dp replicas x tp tensor-split
// chips x pp pipeline stages, ZeRO sharding, recomputation, micro-batches. Both fidelities share
// this composition and differ only in the StageTimer (analytic closed forms, or SystemC chip runs
// and the SystemC interconnect), so they agree wherever the SystemC models see no contention.
//
// Composition, per replica batch b = ceil(M / dp) in m micro-batches of u = ceil(b / m):
//   f_s, b_s   stage s's forward and backward of one micro-batch on one chip (StageTimer), each
//              plus its tensor-parallel all-reduces (ring over the tp chips of a node: Megatron's
//              two per transformer layer each way), which sit on the critical path
//   p_c        the activation (and, backward, gradient) transfer at cut c (StageTimer::p2p_s):
//              each of the tp chips sends 1/tp of it (Megatron's scatter-gather), all the devices
//              of a node at once when the cut crosses nodes
//   pipeline   sum_s (f_s + b_s) + 2 sum_c p_c + (m - 1) max_s (f_s + b_s)   (GPipe and 1F1B;
//              balanced stages give the bubble fraction (p - 1)/(m + p - 1), Huang et al. 2019)
//   gradients  each stage's buckets over its dp group (step_profile.h) during the last micro-
//              batch's backward: an all-reduce, or under ZeRO-2/3 a reduce-scatter (half the
//              all-reduce's ring steps) in every micro-batch; the exposed part adds to the step
//   ZeRO       1 and 2: the updated parameter shards are all-gathered after the optimizer
//              (exposed); 3: parameters are all-gathered per micro-batch in forward and again in
//              backward, prefetched layer by layer (FSDP): exposed max(0, gather - compute) plus
//              the first layer's gather; the optimizer updates 1/dp of the parameters under 1..3
//   total      pipeline + exposed gradients + ZeRO gathers + slowest stage's optimizer + host costs
// Groups: tp runs inside a node on the node fabric; a dp group of a hierarchical system holds
// devices_per_node / tp chips per node and shares the node's network with the tp other groups:
// the twin gives it bandwidth / tp (dp_group_interconnect), the SystemC network runs all tp
// groups at once on the real fabric (NetJob::stride), where their routes share links (on a ring,
// a group's neighbours are tp hops away); pipeline cuts cross nodes when tp x dp >=
// devices_per_node.
// Automatic micro-batches (micro_batch 0): pp = 1 one micro-batch, pp > 1 min(b, 4 pp) (so the
// bubble stays under 20%); then halved until the footprint fits (sim/memory_footprint.h).
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "core/hw_spec.h"
#include "core/layout_spec.h"
#include "core/shard_step.h"
#include "sim/memory_footprint.h"
#include "sim/step_profile.h"
#include "sim/update_model.h"

namespace kp {

// How a fidelity times compute and collectives.
class StageTimer {
 public:
  virtual ~StageTimer() = default;
  virtual const char* fidelity() const = 0;
  // One chip's forward/backward/optimizer of `stage` at micro-batch `micro` (buckets included).
  virtual StepProfile profile(const LoweredStep& stage, int64_t micro) const = 0;
  virtual double allreduce_s(const InterconnectSpec& ic, int64_t learners, double bytes) const = 0;
  // One data-parallel group's all-reduce of `bytes` while the tp groups beside it (learners with
  // the same index mod tp) run theirs: `members` learners tp apart on the system `ic`.
  virtual double group_allreduce_s(const InterconnectSpec& ic, int64_t members, int64_t tp, double bytes) const = 0;
  // `senders` devices each sending `bytes` at once to the next pipeline stage: across nodes (one
  // node's devices to the next node's, sharing both NICs) or to a neighbour in the node.
  virtual double p2p_s(const InterconnectSpec& ic, int64_t senders, double bytes, bool across_nodes) const = 0;
};

// The system a p2p_s() transfer runs on: two nodes of `senders` devices (across), else two devices.
InterconnectSpec p2p_interconnect(const InterconnectSpec& ic, int64_t senders, bool across_nodes);
// Its closed form: one hop alpha + bytes / B; across nodes alpha_link + alpha_net + max(bytes /
// B_device, senders x bytes / B_nic) (exact for one sender; the NIC serves the senders in turn).
double p2p_closed_form_s(const InterconnectSpec& ic, int64_t senders, double bytes, bool across_nodes);

struct LayoutResult {
  Layout layout;
  UpdateResult update;
  int64_t micro_batch = 0, micro_batches = 1;
  Footprint footprint;     // the stage with the largest one
  int footprint_stage = 0;
  bool fits = true;
};

class LayoutUpdate {
 public:
  LayoutUpdate(const HardwareSpec& hw, const LoweredStep& step, const TensorBytes& bytes,
               std::shared_ptr<const StageTimer> timer);
  const char* fidelity() const { return m_timer->fidelity(); }
  // Why `layout` cannot run on `chips` chips of this system ("" when it can): chip count, tp
  // beyond a node or not dividing the split dimensions, pp beyond the network's cut points.
  std::string problem(const Layout& layout, int64_t chips) const;
  // `layout` with dp set (layout_for_chips); M >= dp. Throws std::invalid_argument where
  // problem() is not empty. A result that does not fit memory has fits = false (not an error).
  LayoutResult simulate(int64_t batch, const Layout& layout) const;

 private:
  struct Sharded {
    std::vector<StageStep> stages;
  };
  const Sharded& sharded(const Layout& l) const;
  const std::vector<StepProfile>& profiles(const Layout& l, const Sharded& s, int64_t micro) const;
  std::vector<Footprint> footprints(const Sharded& s, const Layout& l, int64_t micro, int64_t m) const;

  HardwareSpec m_hw;
  LoweredStep m_step;
  TensorBytes m_tensor_bytes;
  std::shared_ptr<const StageTimer> m_timer;
  // What problem() asks of every layout, once: the gcd of the head counts (0: no attention) and
  // the step's cut points (the search checks thousands of layouts against them).
  int64_t m_heads_gcd = 0, m_cut_points = 0;
  mutable std::mutex m_mutex;
  mutable std::map<std::tuple<int64_t, int64_t, int, bool>, Sharded> m_sharded;
  mutable std::map<std::tuple<int64_t, int64_t, int, bool, int64_t>, std::vector<StepProfile>> m_profiles;
};

// The interconnect of one tp group (a node's fabric, tp chips) and of one dp group (see above).
InterconnectSpec tp_group_interconnect(const InterconnectSpec& ic, int64_t tp);
InterconnectSpec dp_group_interconnect(const InterconnectSpec& ic, int64_t tp, int64_t dp);

}  // namespace kp
