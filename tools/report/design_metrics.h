#pragma once
// Figures the report derives per design from its reported point. Contract: pure functions of the
// study result; a figure that cannot be formed (no energy or no cost modelled) is 0, which the
// writers show as an empty cell or "-", never as a value.
#include <vector>

#include "tools/study/study_result.h"

namespace kp {

// perf/W: training throughput per watt, (samples/s) / W = samples per joule over the whole run
// (steps x global batch / energy); 0 without an energy.
double samples_per_joule(const TimePoint& p);
// perf/$: training samples per US dollar of the run; 0 without a cost.
double samples_per_usd(const TimePoint& p);
// One flag per system (by index): feasible and not dominated on (time, cost, energy) together by
// another feasible design of the same workload (no worse on all three, better on one). Unlike
// SystemResult::pareto this ignores which objectives the study listed.
std::vector<bool> pareto_time_cost_energy(const StudyResult& r);

}  // namespace kp
