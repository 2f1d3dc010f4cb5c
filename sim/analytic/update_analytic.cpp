#include "sim/analytic/update_analytic.h"

#include <algorithm>
#include <stdexcept>

#include "sim/analytic/collective_analytic.h"

namespace kp {

AnalyticUpdate::AnalyticUpdate(const HardwareSpec& hw, const LoweredStep& step, int64_t bytes_per_element)
    : m_hw(hw), m_step(step), m_chip(hw, bytes_per_element), m_bytes(bytes_per_element) {}

double update_energy_j(const EnergySpec& e, const ActionCounts& a, int64_t learners) {
  const double per_chip = a.macs * e.mac_j + a.vector_ops * e.vector_op_j + a.sram_bytes * e.sram_byte_j +
                          a.dram_bytes * e.dram_byte_j + a.link_bytes * e.link_byte_j;
  return per_chip * static_cast<double>(learners);
}

AnalyticUpdate::Profile AnalyticUpdate::profile(int64_t m, std::vector<LayerRecord>* layers) const {
  Profile prof;
  const double grad_bytes_per_param = static_cast<double>(m_bytes);
  double t = 0;             // time on the chip's compute timeline
  double bucket_bytes = 0;  // gradient bytes waiting for the current bucket
  for (const Op& op : m_step.ops) {
    const OpCost c = m_chip.cost(op, m);
    if (op.phase == Phase::Forward) prof.forward_s += c.seconds;
    else if (op.phase == Phase::Update) prof.optimizer_s += c.seconds;
    else prof.backward_s += c.seconds;
    if (op.phase != Phase::Update) t += c.seconds;
    prof.actions.macs += c.macs;
    prof.actions.vector_ops += c.vector_ops;
    prof.actions.sram_bytes += c.sram_bytes;
    prof.actions.dram_bytes += c.dram_bytes;
    if (op.grad_params > 0) {
      bucket_bytes += static_cast<double>(op.grad_params) * grad_bytes_per_param;
      if (bucket_bytes >= m_hw.interconnect.bucket_bytes) {
        prof.buckets.emplace_back(t, bucket_bytes);
        bucket_bytes = 0;
      }
    }
    if (layers) {
      LayerRecord rec;
      rec.name = m_step.layer_names[static_cast<size_t>(op.layer)];
      rec.phase = op.phase;
      if (op.kind == OpKind::Gemm) rec.gemm = op.gemm_at(m);
      rec.cycles = c.cycles;
      rec.utilization = c.utilization;
      rec.seconds = c.seconds;
      layers->push_back(rec);
    }
  }
  if (bucket_bytes > 0) prof.buckets.emplace_back(t, bucket_bytes);  // the last, partial bucket
  prof.backward_end_s = t;
  return prof;
}

UpdateResult AnalyticUpdate::finish(const Profile& prof, int64_t m, int64_t learners) const {
  UpdateResult r;
  r.per_learner_batch = m;
  r.actions = prof.actions;
  UpdateBreakdown& b = r.breakdown;
  b.forward_s = prof.forward_s;
  b.backward_s = prof.backward_s;
  b.optimizer_s = prof.optimizer_s;
  double comm_end = 0;  // when the last started bucket's all-reduce ends
  if (learners > 1) {
    const InterconnectSpec& ic = m_hw.interconnect;
    for (const auto& [ready_s, bytes] : prof.buckets) {
      const double d = allreduce_s(ic, learners, bytes);
      comm_end = std::max(comm_end, ready_s) + d;
      b.allreduce_s += d;
      r.actions.link_bytes += allreduce_bytes_per_chip(ic, learners, bytes);
    }
  }
  b.allreduce_exposed_s = std::max(0.0, comm_end - prof.backward_end_s);
  b.t_update_s = b.forward_s + b.backward_s + b.allreduce_exposed_s + b.optimizer_s;
  r.energy_j = update_energy_j(m_hw.energy, r.actions, learners);
  return r;
}

UpdateResult AnalyticUpdate::simulate(int64_t batch, int64_t learners,
                                      std::vector<LayerRecord>* layers) const {
  if (batch < 1 || learners < 1) throw std::invalid_argument("simulate: batch and learners must be >= 1");
  const int64_t m = (batch + learners - 1) / learners;
  if (layers) return finish(profile(m, layers), m, learners);
  std::lock_guard<std::mutex> lock(m_cache_mutex);
  auto it = m_cache.find(m);
  if (it == m_cache.end()) it = m_cache.emplace(m, profile(m, nullptr)).first;
  return finish(it->second, m, learners);
}

}  // namespace kp
