#pragma once
// The T_update plots of one system. Contract: each returns a complete <svg> element
// (deterministic text) with units on both axes; missing data leaves the axes empty.
#include <cstdint>
#include <string>
#include <vector>

#include "tools/study/study_runner.h"

namespace kp {

// The components of T_update in stacking order, with their colours (the page's shared legend).
struct BreakdownPart {
  const char* name;
  const char* color;
};
const std::vector<BreakdownPart>& breakdown_parts();

// T_update (ms) vs M on log-log axes, one line per P in `learners`: where a bigger batch stops
// being free (the update is latency-bound below that M and compute-bound above it).
std::string plot_update_time(const SystemResult& s, const std::vector<int64_t>& learners);

// The share of T_update (%) of forward, backward, exposed all-reduce and optimizer vs M at one P,
// as 100% stacked bars; each bar's hover title gives the times in ms.
std::string plot_breakdown(const SystemResult& s, int64_t learners);

// The colour of the i-th of the P values drawn by plot_update_time (titles of the share plots).
const char* learners_color(size_t i);

}  // namespace kp
