#include "sim/analytic/update_analytic.h"

#include <algorithm>
#include <stdexcept>

#include "sim/step_profile.h"

namespace kp {

AnalyticUpdate::AnalyticUpdate(const HardwareSpec& hw, const LoweredStep& step, const Precision& precision,
                               StepProfileCache* shared)
    : m_hw(hw),
      m_step(step),
      m_chip(hw, precision),
      m_bytes(precision.bytes.gradients),
      m_need(shared ? shared->memory_need(step, precision.bytes) : plain_memory_need(step, precision.bytes)),
      m_shared(shared) {}

double update_energy_j(const EnergySpec& e, const ActionCounts& a, int64_t learners) {
  const double per_chip = a.macs * e.mac_j + a.vector_ops * e.vector_op_j + a.sram_bytes * e.sram_byte_j +
                          a.dram_bytes * e.dram_byte_j + a.link_bytes * e.link_byte_j;
  return per_chip * static_cast<double>(learners);
}

UpdateResult AnalyticUpdate::simulate(int64_t batch, int64_t learners,
                                      std::vector<LayerRecord>* layers) const {
  if (batch < 1 || learners < 1) throw std::invalid_argument("simulate: batch and learners must be >= 1");
  const int64_t m = (batch + learners - 1) / learners;
  const int64_t accum = accumulation_steps(m_hw, m_need, m);
  const int64_t micro = (m + accum - 1) / accum;
  UpdateResult r;
  if (layers) {
    r = finish_update(profile(micro, layers), m_hw, m, learners, accum);
  } else {
    std::lock_guard<std::mutex> lock(m_cache_mutex);
    auto it = m_cache.find(micro);
    if (it == m_cache.end()) {
      const auto make = [&] { return profile(micro, nullptr); };
      it = m_cache.emplace(micro, m_shared ? m_shared->get(m_hw, m_chip.precision(), micro, make) : make()).first;
    }
    r = finish_update(it->second, m_hw, m, learners, accum);
  }
  r.memory = memory_parts(m_need.at(micro, m_hw.dram.capacity_bytes));
  return r;
}

// Every input read here and by ChipAnalytic::cost is in StepProfileCache's key: keep them in step.
StepProfile AnalyticUpdate::profile(int64_t m, std::vector<LayerRecord>* layers) const {
  StepProfileBuilder builder(m_step, m_hw.interconnect.bucket_bytes, m_hw.interconnect.first_bucket_bytes, m_bytes, m,
                             layers);
  builder.set_kernel_launch_s(m_hw.runtime.launch_batching ? 0.0 : m_hw.runtime.kernel_launch_s);
  for (const Op& op : m_step.ops) builder.add(op, m_chip.cost(op, m));
  return builder.done();
}

}  // namespace kp
