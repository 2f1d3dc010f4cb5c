#pragma once
// report.html: one self-contained page (inline CSS and SVG, no JavaScript, nothing fetched) that
// opens with the answer for each system (best batch and chips, total time, energy, cost, knee,
// B_crit), then, for a sweep, the objectives against each swept key and a two-key heat map
// (sweep_plots.h), the plots (step curve, T_update breakdown, T(M, P) heat map, speed-up, strong
// vs weak scaling, Pareto) and a table of the systems ranked (with perf/W and perf/$). Contract: deterministic; every
// name from the study is escaped; every axis and column states its unit.
#include <string>

#include "tools/study/study_runner.h"

namespace kp {

std::string report_html(const StudyResult& r);

}  // namespace kp
