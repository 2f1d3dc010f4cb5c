#pragma once
// Runs a study: every design point's (M, P) grid with the study's fidelity (study_eval.h), then
// ranks and Pareto flags (study_select.h) and the SystemC verification of the top k per workload.
// Contract: deterministic; the result does not depend on --jobs, on the number of MPI ranks, or
// on how often the run was killed and resumed (results always come back through the journal's
// exact encoding). With an output folder, every finished design point and verification is
// journaled in DIR/study.journal (study_journal.h) as soon as it is known.
#include <cstdio>
#include <string>

#include "tools/study/study_result.h"
#include "tools/study/transport.h"

namespace kp {

struct RunOptions {
  std::string out_dir;           // empty: no journal (in-memory run)
  bool resume = false;           // keep the finished records of DIR/study.journal
  int jobs = 1;                  // worker threads per process (analytic fidelity)
  std::FILE* progress = nullptr; // progress bar / lines (rank 0 only)
  Transport* transport = nullptr;  // null: one process
};

// On ranks other than 0 the returned result is empty (rank 0 gathers everything).
StudyResult run_study(const StudySpec& spec, const RunOptions& options);
StudyResult run_study(const StudySpec& spec, std::FILE* progress);  // in memory, one job

// Rebuilds the result of a finished run from DIR/study.journal alone (`kneepoint report DIR`).
// ConfigError if the journal is missing, corrupt, or the run has not finished.
StudyResult load_study_result(const std::string& dir);

std::string journal_path(const std::string& dir);

}  // namespace kp
