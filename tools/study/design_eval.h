#pragma once
// Evaluates design points. Contract: the constructor loads every workload and hardware file of the
// study once (ConfigError on bad input); evaluate(i) builds design point i's hardware (base file + its sweep
// overrides, validated like --set), predicts the (M, P) grid with the study's fidelity (P capped
// by the system and by max_chips) and chooses its point (study_select.h). evaluate() is const and
// may run on several threads at once; with fidelity systemc it forks a pool of SystemC workers
// (one job per distinct per-learner batch), so callers run it on one thread then.
#include <memory>
#include <string>
#include <vector>

#include "sim/analytic/step_profile_cache.h"
#include "tools/study/case_loader.h"
#include "tools/study/design_space.h"
#include "tools/study/study_result.h"

namespace kp {

class DesignEvaluator {
 public:
  // `systemc_workers`: forked SystemC processes per pool (fidelity systemc, verification).
  explicit DesignEvaluator(const StudySpec& spec, int systemc_workers = 1);
  const std::vector<WorkloadResult>& workloads() const { return m_results; }
  size_t count() const { return m_count; }
  SystemResult evaluate(size_t index) const;
  // (M, P) points of designs re-simulated with the SystemC update, all in one forked worker pool
  // (the verification of chosen points). Forks: call with no other thread running.
  struct PointRef {
    size_t index;
    int64_t batch, learners;
  };
  std::vector<TimePoint> evaluate_systemc(const std::vector<PointRef>& points) const;
  // The label of design point i: hardware name, swept values, workload name if several.
  std::string label(const DesignPointSpec& d, const std::string& hardware_name) const;

 private:
  Case build(const DesignPointSpec& d) const;  // hardware with overrides; step and law only
  static bool workload_swept(const DesignPointSpec& d);  // an override of the workload file

  const StudySpec& m_spec;
  size_t m_count = 0;
  int m_sc_workers = 1;
  std::vector<ConfigDoc> m_hardware;  // each base hardware file, loaded once (deep copies)
  std::vector<WorkloadCase> m_cases;
  // Per workload: the analytic step profiles its designs share (unless the workload is swept).
  std::vector<std::unique_ptr<StepProfileCache>> m_profiles;
  std::vector<WorkloadResult> m_results;
};

// The override list as --set assignments ("key=value").
std::vector<std::string> assignments(const std::vector<Override>& overrides);

}  // namespace kp
