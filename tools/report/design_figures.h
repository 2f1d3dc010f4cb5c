#pragma once
// The power, area and price figures of one design as report text. Contract: a figure the
// hardware file does not model says so ("static power not modelled") instead of showing 0.
#include <string>

#include "tools/study/study_result.h"

namespace kp {

// "average power per chip 410 W (59% of 700 W TDP)" or "... W dynamic only (static power not modelled)".
std::string power_text(const SystemResult& s, const TimePoint& p);
// "die 612 mm2, chip $3,100 (build cost model)", or "" for a file without `area:` / rental cost.
std::string silicon_text(const SystemResult& s);
// A warning when the reported point's average chip power exceeds the TDP, else "".
std::string tdp_warning_text(const SystemResult& s, const TimePoint& p);

}  // namespace kp
