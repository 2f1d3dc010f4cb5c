#pragma once
// The design points of a study, enumerated in one fixed order: workload-major, then base hardware
// file, then sweep combinations (mixed radix over the groups, the last group varying fastest;
// a zip group advances all its axes together, a cross group its last axis fastest). Contract:
// design_point(spec, i) depends only on spec and i, so ranks and workers agree on what i means.
#include <cstddef>
#include <vector>

#include "tools/study/study_spec.h"

namespace kp {

struct DesignPointSpec {
  size_t workload = 0, hardware = 0;  // indices into spec.workloads / spec.hardware
  std::vector<Override> overrides;    // one per swept key, in the study file's order
};

size_t sweep_combinations(const std::vector<SweepGroup>& sweep);  // 1 without sweeps
size_t design_count(const StudySpec& spec);
DesignPointSpec design_point(const StudySpec& spec, size_t index);

}  // namespace kp
