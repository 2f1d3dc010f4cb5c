#pragma once
// One step-curve measurement shared by the ranks of an MPI run (`mpirun -np N kneepoint curve`,
// and a study whose workload's measured cache is stale). The search is one chain of trials per
// batch size (models/step_curve/measure/curve_run.h): the trials of a chain bound each other,
// chains are independent, so a rank that runs some chains with measure_curve() records exactly
// what a one-process run records for them.
//
// Contract (every rank calls measure_curve_on_ranks() with the same arguments):
// - Assignment: assign_chains(), longest processing time first over each chain's cost estimate
//   M * budget_of(M) samples (the law-shaped budget A + ceil(B/M) steps makes it A*M + B: what a
//   chain costs at its cap; pruning scales every chain down alike). Deterministic.
// - Journals: rank 0 journals its chains in OUT.journal (the one-process journal), rank r > 0 in
//   OUT.journal.rank<r>. Before any trial, rank 0 merges OUT.journal and every OUT.journal.rank*
//   it finds (left by a killed run with any number of ranks, or by one process) into OUT.journal,
//   removes the rank files and hands each rank the records of its chains: a kill loses only the
//   running trials, and a resume works with any -np. When every rank is done, rank 0 adds the
//   gathered records to OUT.journal and removes the rank files: a finished run leaves the files
//   a one-process run leaves.
// - Rank 0 then measures B_simple once and writes OUT through measure_and_write_curve(), as one
//   process does: the same records, only wall times (and the provenance command) differ.
// - MPI only from the calling (main) thread: measure_curve()'s workers never call it; a rank sends
//   its records (one small, eager message each) once its chains are done. Waiting ranks sleep.
// - Errors: a refusal before any trial (a journal exists without resume, or one of other
//   settings without restart) throws CurveRanksRefused on every rank, so MPI can end cleanly. An
//   error during the trials is thrown on its rank only: the caller prints it and aborts every
//   rank (Transport's destructor calls MPI_Abort), as the study runner does.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "core/config_error.h"
#include "models/step_curve/measure/curve_cache.h"
#include "tools/study/transport.h"

namespace kp {

class CurveRanksRefused : public ConfigError {
 public:
  using ConfigError::ConfigError;
};

// The batch sizes of each of `ranks` ranks (some may be empty), each list in decreasing batch.
std::vector<std::vector<int64_t>> assign_chains(const CurveSearchSpec& s, int ranks);

// Every OUT.journal.rank* file, sorted (left by a killed run of any number of ranks).
std::vector<std::string> rank_files(const std::string& out);

// In one process (t.size() == 1) it is the plain measurement after the merge of rank files.
// `resume`: continue the journals found (else they are a refusal); `restart_other_settings`: a
// journal of other settings is dropped (a stale cache) instead of refused. Returns rank 0's
// measurement, an empty one on the other ranks; on return, OUT is written.
CurveMeasurement measure_curve_on_ranks(Transport& t, const ResolvedNetwork& net, const Dataset& data,
                                        const CurveSearchSpec& s, CurveRunInfo info,
                                        const std::string& out, bool resume,
                                        bool restart_other_settings, std::ostream& log);

// Under mpirun (t.size() > 1): measures the stale `step_curve: {source: measure}` caches of these
// workload files on all ranks, with `jobs` threads each, before the study loads them (which then
// finds them current); flock on CACHE.lock as cached_or_measured_curve(). Files that do not parse,
// current caches and KP_NO_CURVE_MEASURE are left to the loader (and its errors).
void measure_stale_curve_caches(Transport& t, const std::vector<std::string>& workload_files, int jobs,
                                std::ostream& log);

}  // namespace kp
