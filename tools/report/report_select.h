#pragma once
// What the report shows of a study with many design points. Contract: deterministic, from the
// study result only. A design is "featured" (drawn in the per-design plots) when it is the best
// feasible design of its (workload, base hardware file) pair; so a study without sweeps features
// every system, and a 10,000-point sweep features one design per base file and workload.
#include <string>
#include <vector>

#include "tools/study/study_result.h"

namespace kp {

// The point the report quotes for a design: the chosen point if one meets the constraints,
// else the fastest point of the grid (the report says it is infeasible).
const TimePoint& reported_point(const SystemResult& s);

// Designs by workload, then rank (infeasible last), then index.
std::vector<size_t> ranked_designs(const StudyResult& r);

// Featured designs (see above), in ranked order, at most `max_count`; when that gives fewer than
// three, the next designs in rank order are added up to three (a sweep over one hardware file
// still shows how its best designs differ).
std::vector<size_t> featured_designs(const StudyResult& r, size_t max_count = 8);

// Indices of the designs of workload w, in index order.
std::vector<size_t> designs_of_workload(const StudyResult& r, size_t w);

// The name plots use: the design name without sweeps, else the hardware name and the swept values
// in sweep order, e.g. "tpu-v3-pod (256, 256, 32 MiB, 400 GB/s)".
std::string design_label(const SystemResult& s);

// "rows=64; bandwidth=50 GB/s" (the last part of each swept key), or "" without sweeps.
std::string overrides_text(const SystemResult& s);

}  // namespace kp
