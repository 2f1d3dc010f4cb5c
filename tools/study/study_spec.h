#pragma once
// A design study: hardware files x one workload x the M and P grids. Contract: parse_study()
// resolves every path against the study file's folder and validates the grids (a list of
// integers >= 1, or {from, to} meaning powers of two); errors carry file:line:col.
#include <cstdint>
#include <string>
#include <vector>

#include "core/config_doc.h"

namespace kp {

struct StudySpec {
  std::string name;
  std::string source_file;
  std::string workload;                // path
  std::vector<std::string> hardware;   // paths
  std::vector<int64_t> batches;
  std::vector<int64_t> learners;       // capped by each system's max_learners
  double knee_threshold = 0.1;
  int64_t weak_per_learner_batch = 32;
};

StudySpec parse_study(const ConfigDoc& doc);

}  // namespace kp
