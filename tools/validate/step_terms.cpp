#include "tools/validate/step_terms.h"

#include <algorithm>
#include <stdexcept>

#include "sim/analytic/update_analytic.h"

namespace kp {

double RowTerms::launch_bound_runs(double launch_s) const {
  double n = 0;
  for (const auto& [c, runs] : kernels)
    if (c <= launch_s) n += runs;
  return n;
}

double RowTerms::step_time(double launch_s, double overhead_s) const {
  double t = base_s + overhead_s;
  for (const auto& [c, runs] : kernels) t += runs * std::max(0.0, launch_s - c);
  return t;
}

StepTerms::StepTerms(const Case& c, std::vector<int64_t> batches) : m_case(c), m_batches(std::move(batches)) {}

HardwareSpec StepTerms::with(double efficiency, double overhead_s, double launch_s) const {
  HardwareSpec hw = m_case.hw;
  hw.compute_efficiency = efficiency;
  hw.runtime.step_overhead_s = overhead_s;
  hw.runtime.kernel_launch_s = launch_s;
  return hw;
}

std::vector<RowTerms> StepTerms::at(double efficiency) const {
  // With launch batching the one launch per step is a fixed cost like O: it stays in base at the
  // hardware's value. Otherwise base has no launch latency and no overhead, and no input waits.
  HardwareSpec hw = with(efficiency, 0.0, launch_batched() ? m_case.hw.runtime.kernel_launch_s : 0.0);
  hw.runtime.input_samples_per_s = 0;
  const AnalyticUpdate model(hw, m_case.step, m_case.precision);
  std::vector<RowTerms> out;
  out.reserve(m_batches.size());
  std::vector<LayerRecord> layers;
  for (int64_t m : m_batches) {
    layers.clear();
    const UpdateResult r = model.simulate(m, 1, &layers);
    if (layers.size() != m_case.step.ops.size())
      throw std::logic_error("StepTerms: one layer record per op expected");
    RowTerms t;
    t.base_s = r.breakdown.t_update_s;
    const double micro_steps = static_cast<double>(r.accumulation_steps);
    if (!launch_batched())
      for (size_t i = 0; i < layers.size(); ++i) {
        const Op& op = m_case.step.ops[i];
        if (op.fused_with_previous) continue;  // launched with the kernel before it
        const double serial = static_cast<double>(op.serial);
        t.kernels.emplace_back(layers[i].seconds / serial,
                               serial * (op.phase == Phase::Update ? 1.0 : micro_steps));
      }
    out.push_back(std::move(t));
  }
  return out;
}

double one_device_step_s(const Case& c, const HardwareSpec& hw, int64_t batch) {
  const AnalyticUpdate model(hw, c.step, c.precision);
  return model.simulate(batch, 1).breakdown.t_update_s;
}

}  // namespace kp
