#pragma once
// Choosing and comparing design points. Contract: choose_point() sets `feasible` and `chosen`
// of one design (the feasible (M, P) point minimising the objectives lexicographically, ties to
// fewer chips then smaller batch); rank_designs() sets `rank` (1 = best by the first objective
// within its workload, 0 = infeasible) and `pareto` (no feasible design of the same workload is
// at least as good on every objective and better on one). Deterministic, independent of order.
#include "tools/study/study_result.h"

namespace kp {

double objective_value(const TimePoint& p, Objective o);  // s, J or USD
bool point_feasible(const StudySpec& spec, const TimePoint& p);
void choose_point(const StudySpec& spec, SystemResult& design);
void rank_designs(StudyResult& result);

}  // namespace kp
