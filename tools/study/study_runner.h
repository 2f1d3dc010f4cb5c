#pragma once
// Runs a study: for each design point, the full (M, P) grid with the study's fidelity; then the
// chosen point, ranks and Pareto flags (study_select.h) and the SystemC verification of the top k.
// Contract: deterministic; progress lines go to `progress` (may be null).
#include <cstdio>

#include "tools/study/study_result.h"

namespace kp {

StudyResult run_study(const StudySpec& spec, std::FILE* progress);

}  // namespace kp
