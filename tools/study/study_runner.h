#pragma once
// Runs a study: for each hardware file, the full (M, P) grid with the analytic model.
// Contract: deterministic; progress lines go to `progress` (may be null) as each system finishes.
#include <cstdio>
#include <string>
#include <vector>

#include "models/time_model/time_model.h"
#include "tools/study/study_spec.h"

namespace kp {

struct SystemResult {
  std::string name, file;
  int64_t max_learners = 0;
  double cost_per_chip_hour_usd = 0;
  Prediction prediction;
};

struct StudyResult {
  StudySpec spec;
  std::string workload_name;
  StepLaw law;
  int64_t params = 0;
  std::vector<SystemResult> systems;
};

StudyResult run_study(const StudySpec& spec, std::FILE* progress);

}  // namespace kp
