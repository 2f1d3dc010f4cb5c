#pragma once
// Writes a study's outputs into a folder: report.html, report.md (the answer first, then
// tables), points.csv (every (M, P) point of every design), designs.csv (one row per design) and
// summary.json. Contract: each file is written atomically; every number states its unit (SI
// units in CSV/JSON column names); the functions read the study result only, never re-run.
#include <string>

#include "tools/study/study_result.h"

namespace kp {

std::string report_markdown(const StudyResult& r);
std::string points_csv(const StudyResult& r);
std::string designs_csv(const StudyResult& r);
std::string summary_json(const StudyResult& r);
// Creates `dir` if needed; throws std::runtime_error on I/O failure.
void write_report(const StudyResult& r, const std::string& dir);

// "3.2 h", "41 min", "12.5 s", "850 ms", "12 us": a duration a person reads at a glance.
std::string human_seconds(double s);
// Total times and energies in the report's one unit each (s and J, as the tables), a minute or a
// megajoule up with the glanceable form beside it: "6965 s (116.1 min)", "6.464e+07 J (18 kWh)".
std::string total_seconds_text(double s);
std::string energy_text(double j);
// Energy as people quote it: "153 J", "4.3 kJ", then "0.46 kWh" and "12 MWh" from 1 MJ up.
std::string human_joules(double j);
// A file as report.md and report.html name it: relative to the study file's folder, as the study
// wrote it, so that a report names no absolute path of the machine it ran on.
std::string shown_path(const StudyResult& r, const std::string& file);
// Cents for real runs; significant digits for the sub-cent cost of a toy workload, never "0.00".
std::string usd_text(double usd);

}  // namespace kp
