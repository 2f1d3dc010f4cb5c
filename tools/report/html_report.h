#pragma once
// report.html: one self-contained page (inline CSS and SVG, no JavaScript, nothing fetched) that
// opens with the answer for each system (best batch and chips, total time, energy, cost, knee,
// B_crit), then the plots (step curve, T_update breakdown, T(M, P) heat map, speed-up, strong vs
// weak scaling) and a table of the systems ranked by best time. Contract: deterministic; every
// name from the study is escaped; every axis and column states its unit.
#include <string>

#include "tools/study/study_runner.h"

namespace kp {

std::string report_html(const StudyResult& r);

}  // namespace kp
