#pragma once
// A Case for the verbs that time one update and never need the step curve N(M) (simulate,
// validate): loaded as load_case() does, overrides included, but with the step curve left
// unresolved, so such a verb never reads a curve cache, never fits a curve file and never starts
// a measurement (a stale or missing `measure` cache would otherwise run the trainer for minutes).
// Contract: the returned Case's `law` is a default StepLaw and must not be used; every other field
// equals load_case()'s. Verbs that need N(M) (predict, study) keep load_case()/load_workload_case().
// (Kept beside case_loader.cpp, which is another change's; the two may merge into one loader with
// a "needs the curve" flag.)
#include <string>
#include <vector>

#include "tools/study/case_loader.h"

namespace kp {

Case load_update_case(const std::string& hw_file, const std::string& workload_file,
                      const std::vector<std::string>& overrides = {});

}  // namespace kp
