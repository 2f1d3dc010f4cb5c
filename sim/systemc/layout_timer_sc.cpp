#include "sim/systemc/layout_timer_sc.h"

#include <algorithm>

#include "sim/systemc/net/net_runner.h"
#include "sim/systemc/systemc_update.h"

namespace kp {

SystemcStageTimer::SystemcStageTimer(const HardwareSpec& hw, const Precision& precision)
    : m_hw(hw), m_precision(precision) {}

StepProfile SystemcStageTimer::profile(const LoweredStep& stage, int64_t micro) const {
  const SystemcUpdate sc(m_hw, stage, m_precision);
  const std::vector<OpCost> costs = sc.op_costs_from(run_chip_sc_forked(sc.chip_run_at(micro)));
  StepProfileBuilder builder(stage, m_hw.interconnect.bucket_bytes, m_hw.interconnect.first_bucket_bytes,
                             m_precision.bytes.gradients,
                             micro, nullptr);
  builder.set_kernel_launch_s(m_hw.runtime.launch_batching ? 0.0 : m_hw.runtime.kernel_launch_s);
  for (size_t i = 0; i < stage.ops.size(); ++i) builder.add(stage.ops[i], costs[i]);
  return builder.done();
}

double SystemcStageTimer::run(const NetJob& job) const {
  const InterconnectSpec& ic = job.ic;
  const auto key = std::make_tuple(static_cast<int>(ic.topology), static_cast<int>(ic.collective), job.point_to_point,
                                   job.stride, job.learners, ic.devices_per_node, ic.link.bandwidth_bytes_per_s,
                                   ic.inter_node.bandwidth_bytes_per_s, job.bytes);
  std::lock_guard<std::mutex> lock(m_mutex);
  auto it = m_collectives.find(key);
  if (it == m_collectives.end()) it = m_collectives.emplace(key, run_net_sc_forked({job}).front().seconds).first;
  return it->second;
}

double SystemcStageTimer::allreduce_s(const InterconnectSpec& ic, int64_t learners, double bytes) const {
  if (learners <= 1 || bytes <= 0) return 0.0;
  NetJob job;
  job.ic = ic, job.learners = learners, job.bytes = bytes;
  return run(job);
}

double SystemcStageTimer::p2p_s(const InterconnectSpec& ic, int64_t senders, double bytes, bool across) const {
  if (bytes <= 0) return 0.0;
  NetJob job;
  job.ic = p2p_interconnect(ic, senders, across);
  job.learners = 2 * senders, job.bytes = bytes, job.point_to_point = true;
  return run(job);
}

double SystemcStageTimer::group_allreduce_s(const InterconnectSpec& ic, int64_t members, int64_t tp,
                                            double bytes) const {
  // The torus and tree collectives have no grouped form: one group alone on its share of the system.
  const bool grouped = tp > 1 && (ic.collective == Collective::Ring || ic.collective == Collective::Hierarchical) &&
                       (ic.topology != Topology::Hierarchical || ic.devices_per_node % tp == 0);
  if (!grouped) return allreduce_s(dp_group_interconnect(ic, tp, members), members, bytes);
  if (members <= 1 || bytes <= 0) return 0.0;
  NetJob job;
  job.ic = ic;
  job.learners = members * tp, job.bytes = bytes, job.stride = tp;
  job.ic.max_learners = std::max(ic.max_learners, job.learners);
  return run(job);
}

}  // namespace kp
