#pragma once
// A workload's measured step curve, as a file: `kneepoint curve` and the time model's
// `step_curve: {source: measure, path, protocol, seed}` both go through here.
// - The CSV (curve_measure.h format) carries its provenance in `# key: value` lines: command,
//   protocol name, seed, date, the search settings, wall and CPU time, B_simple, and a fingerprint.
// - The fingerprint hashes everything the curve depends on: the resolved network (layer kinds,
//   shapes, parameters), the dataset kind and split sizes (not its folder), the optimizer kind and
//   decay, init, target, the search ranges and rules, batch sizes, trials, seed and protocol name,
//   and the trainer's arithmetic (kTrainerNumerics).
//   A cached file is used only when its fingerprint equals the workload's; otherwise the curve is
//   measured again (journaled next to the CSV, so a killed measurement resumes) and the CSV is
//   replaced atomically.
// - B_simple: after the search, the best trial of the batch size nearest 128 (log scale; ties:
//   the smaller; if it has no successful trial, the nearest that has one) is re-run with a
//   NoiseProbe (noise_probe.h) with b = that batch size, probing every max(1, steps/64) steps.
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "core/workload_spec.h"
#include "models/step_curve/curve_csv.h"
#include "models/step_curve/measure/curve_measure.h"
#include "models/step_curve/measure/curve_protocol.h"
#include "models/step_curve/measure/noise_probe.h"

namespace kp {

// The search of workload w under protocol p (optimizer, target, budget cap and eval_every from w).
CurveSearchSpec curve_search_spec(const WorkloadSpec& w, const CurveProtocol& p, uint64_t seed, int jobs);

// 16 hex digits (FNV-1a 64 of the canonical description, see above).
std::string curve_fingerprint(const WorkloadSpec& w, const ResolvedNetwork& net,
                              const CurveSearchSpec& s, const std::string& protocol);

struct CurveMeasurement {
  std::vector<TrialRecord> records;
  std::optional<NoiseScaleResult> noise;
  int64_t noise_trial = -1;
  double wall_s = 0, cpu_s = 0;  // this run (a resumed run counts only its own part)
  double load_start = 0, load_end = 0;
};

struct CurveRunInfo {
  std::string command, protocol, fingerprint, workload_name, workload_path;
};

// Runs the trials of a search and returns every record sorted by (batch, trial); `on_trial` is
// measure_curve()'s progress callback; `other_cpu_s` gets the CPU time spent in other processes.
// The MPI runner (tools/study/curve_ranks.h) gives one that shares the trials between ranks.
using CurveSearchFn = std::function<std::vector<TrialRecord>(
    const std::function<void(const TrialRecord&)>& on_trial, double& other_cpu_s)>;

// Runs (or resumes, journal `out`.journal) the search, measures B_simple and writes `out`
// atomically with its provenance. Progress lines go to `log`. The journal is kept. `search`
// empty: measure_curve() in this process.
CurveMeasurement measure_and_write_curve(const ResolvedNetwork& net, const Dataset& data,
                                         const CurveSearchSpec& s, const CurveRunInfo& info,
                                         const std::string& out, bool resume, std::ostream& log,
                                         const CurveSearchFn& search = {});

// Whether the file at `path` is a curve cache with this fingerprint; if not, *why says so (for
// a log line: "not measured yet", or "made with other settings (...)").
bool curve_cache_current(const std::string& path, const std::string& fingerprint,
                         std::string* why = nullptr);
// The environment variable KP_NO_CURVE_MEASURE is set: a stale cache is an error, not measured.
bool curve_measuring_forbidden();
// Throws ConfigError(origin, prefix + "batch B exceeds the training split (N samples)") for the
// first batch size of s that the data cannot fill.
void check_batches_fit(const CurveSearchSpec& s, const Dataset& data, const std::string& origin,
                       const std::string& prefix);
// The provenance of a curve measured for a workload's step_curve (not by `kneepoint curve`).
CurveRunInfo workload_curve_info(const WorkloadSpec& w, const std::string& protocol,
                                 const std::string& fingerprint);

// The curve of a workload whose step_curve.source is measure: the cached file if its fingerprint
// matches, else measured now (stating why on `log`) with `jobs` workers, resuming the journal
// next to the cache if it was made with the same search settings (else the journal is restarted).
// Measurements of one cache are serialised by flock on `path`.lock (MPI ranks, parallel tests);
// with the environment variable KP_NO_CURVE_MEASURE set, a missing or stale cache is a
// ConfigError instead of a measurement. Throws ConfigError for data it cannot read. The first form uses the workload's named protocol
// and one job per hardware thread.
std::vector<CurvePoint> cached_or_measured_curve(const WorkloadSpec& w, std::ostream& log);
std::vector<CurvePoint> cached_or_measured_curve(const WorkloadSpec& w, const CurveProtocol& protocol,
                                                 int jobs, std::ostream& log);

}  // namespace kp
