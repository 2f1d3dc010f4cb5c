#pragma once
// The HTML report's text sections. Contract: each returns a complete <section> (deterministic),
// every name escaped, every column with its unit; numbers come from the study result only.
#include <string>

#include "tools/study/study_result.h"

namespace kp {

// Per workload: the best design by the study's first objective, then one row per base hardware
// file (its best design): batch, chips, time, energy, cost, knee, B_crit, Pareto, SystemC check.
std::string answer_section(const StudyResult& r);

// Every design ranked within its workload (the first `max_rows`; the rest are in the CSV files).
std::string ranked_table(const StudyResult& r, size_t max_rows = 100);

}  // namespace kp
