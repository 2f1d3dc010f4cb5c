#pragma once
// Analytic twin of the data-parallel update (see update_model.h). Bucketed overlap is computed
// exactly for a contention-free pipeline: bucket b's all-reduce starts at max(ready_b, end_{b-1}).
// Speed: a learner's compute and its bucket schedule depend only on the per-learner batch m, not
// on P, so they are computed once per m and cached; a further (M, P) point with the same m costs
// one collective evaluation per bucket (sweeps of 10^6 points per second). With a shared
// StepProfileCache (one per LoweredStep), models of designs that share every input of a profile
// share the profile too.
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/hw_spec.h"
#include "core/lowering.h"
#include "sim/analytic/chip_analytic.h"
#include "sim/analytic/step_profile_cache.h"
#include "sim/step_profile.h"
#include "sim/update_model.h"

namespace kp {

class AnalyticUpdate : public UpdateModel {
 public:
  AnalyticUpdate(const HardwareSpec& hw, const LoweredStep& step, const Precision& precision,
                 StepProfileCache* shared = nullptr);
  const char* fidelity() const override { return "analytic"; }
  UpdateResult simulate(int64_t batch, int64_t learners,
                        std::vector<LayerRecord>* layers = nullptr) const override;

 private:
  StepProfile profile(int64_t m, std::vector<LayerRecord>* layers) const;

  mutable std::mutex m_cache_mutex;
  mutable std::unordered_map<int64_t, StepProfile> m_cache;
  HardwareSpec m_hw;
  LoweredStep m_step;
  ChipAnalytic m_chip;
  int64_t m_bytes;
  MemoryNeed m_need;
  StepProfileCache* m_shared;
};

// Energy of one update on all learners from per-chip action counts (Accelergy-style tables).
double update_energy_j(const EnergySpec& e, const ActionCounts& a, int64_t learners);

}  // namespace kp
