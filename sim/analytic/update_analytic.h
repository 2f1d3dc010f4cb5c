#pragma once
// Analytic twin of the data-parallel update (see update_model.h). Bucketed overlap is computed
// exactly for a contention-free pipeline: bucket b's all-reduce starts at max(ready_b, end_{b-1}).
#include "core/hw_spec.h"
#include "core/lowering.h"
#include "sim/analytic/chip_analytic.h"
#include "sim/update_model.h"

namespace kp {

class AnalyticUpdate : public UpdateModel {
 public:
  AnalyticUpdate(const HardwareSpec& hw, const LoweredStep& step, int64_t bytes_per_element);
  const char* fidelity() const override { return "analytic"; }
  UpdateResult simulate(int64_t batch, int64_t learners,
                        std::vector<LayerRecord>* layers = nullptr) const override;

 private:
  HardwareSpec m_hw;
  LoweredStep m_step;
  ChipAnalytic m_chip;
  int64_t m_bytes;
};

// Energy of one update on all learners from per-chip action counts (Accelergy-style tables).
double update_energy_j(const EnergySpec& e, const ActionCounts& a, int64_t learners);

}  // namespace kp
