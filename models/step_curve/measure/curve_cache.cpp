#include "models/step_curve/measure/curve_cache.h"

#include "models/step_curve/measure/curve_cache_lock.h"

#include <sys/stat.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <ostream>
#include <sstream>
#include <thread>

#include "core/atomic_file.h"
#include "core/config_error.h"
#include "core/cpu_clock.h"
#include "core/fnv_hash.h"
#include "models/step_curve/measure/curve_journal.h"

namespace kp {
namespace {

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

void describe_layers(std::ostream& o, const std::vector<ResolvedLayer>& layers) {
  for (const ResolvedLayer& l : layers) {
    o << layer_kind_name(l.spec.kind) << "(" << l.in.c << "x" << l.in.h << "x" << l.in.w << "->"
      << l.out.c << "x" << l.out.h << "x" << l.out.w << ",p" << l.params << ",k" << l.spec.kernel
      << ",s" << l.spec.stride << ",pad" << static_cast<int>(l.spec.padding) << ",b" << l.spec.bias
      << ",blk" << l.block_start << ")";
    if (!l.shortcut.empty()) {
      o << "[";
      describe_layers(o, l.shortcut);
      o << "]";
    }
  }
}

// The measured batch size nearest 128 in log scale (ties: smaller) that has a successful trial.
std::optional<TrialRecord> noise_trial_of(const std::vector<TrialRecord>& records) {
  std::optional<TrialRecord> best;
  double best_d = 0;
  for (const auto& [batch, steps] : steps_to_target(records)) {
    if (!std::isfinite(steps)) continue;
    const double d = std::fabs(std::log2(double(batch)) - 7.0);
    if (best && d >= best_d) continue;
    for (const TrialRecord& r : records)  // records are sorted by (batch, trial): first = lowest
      if (r.batch == batch && r.steps && double(*r.steps) == steps) {
        best = r, best_d = d;
        break;
      }
  }
  return best;
}

NoiseScaleResult measure_noise(const ResolvedNetwork& net, const Dataset& data,
                               const CurveSearchSpec& s, const TrialRecord& r) {
  TrialConfig c = trial_config_of(s, r.batch, r.trial, {r.learning_rate, r.momentum});
  c.eval_every = *r.steps;  // its outcome is known; evaluating on the way would change nothing
  NoiseProbe probe(net, data, r.batch, std::max<int64_t>(1, *r.steps / 64), s.seed ^ 0x6e6f697365ull);
  train_trial(net, data, c, *r.steps, &probe);
  return probe.result();
}

}  // namespace

CurveSearchSpec curve_search_spec(const WorkloadSpec& w, const CurveProtocol& p, uint64_t seed, int jobs) {
  CurveSearchSpec s;
  s.base = trial_config_from(w, 1);
  s.lr_min = w.optimizer.lr_min;
  s.lr_max = w.optimizer.lr_max;
  s.one_minus_momentum_min = w.optimizer.one_minus_momentum_min;
  s.one_minus_momentum_max = w.optimizer.one_minus_momentum_max;
  s.seed = seed;
  s.jobs = jobs;
  apply_protocol(p, s);
  return s;
}

std::string curve_fingerprint(const WorkloadSpec& w, const ResolvedNetwork& net,
                              const CurveSearchSpec& s, const std::string& protocol) {
  std::ostringstream o;
  o << "kneepoint-curve-v1|in " << net.input.c << "x" << net.input.h << "x" << net.input.w << "|";
  describe_layers(o, net.layers);
  const OptimizerSpec& opt = s.base.optimizer;
  o << "|data " << w.dataset.kind << " val " << w.dataset.validation_size << " train "
    << w.dataset.train_size << "|opt " << static_cast<int>(opt.kind) << " wd " << opt.weight_decay
    << " sched " << static_cast<int>(opt.schedule) << " " << opt.final_lr_factor << " "
    << opt.decay_steps << " warm " << opt.warmup_steps << "|init " << static_cast<int>(s.base.init)
    << "|" << journal_fingerprint(s) << "|batches " << join_batches(s.batches) << "|trials " << s.trials
    << "|protocol " << protocol;
  return fnv1a64_hex(o.str());
}

CurveMeasurement measure_and_write_curve(const ResolvedNetwork& net, const Dataset& data,
                                         const CurveSearchSpec& s, const CurveRunInfo& info,
                                         const std::string& out, bool resume, std::ostream& log,
                                         const CurveSearchFn& search) {
  CurveMeasurement m;
  m.load_start = load_average_1min();
  const double cpu0 = process_cpu_s();
  const auto t0 = std::chrono::steady_clock::now();
  log << "curve " << info.workload_name << " (protocol " << info.protocol << "): "
      << s.batches.size() << " batch sizes x " << s.trials << " trials, target "
      << s.base.target_error << ", " << s.jobs << " jobs; journal " << out << ".journal\n";
  for (int64_t b : s.batches)
    log << "  batch " << b << ": evaluate every " << eval_every_of(s, b) << " steps, budget "
        << budget_of(s, b) << " steps\n";
  const auto progress = [&](const TrialRecord& r) {
    log << "  " << trial_line(r) << "\n" << std::flush;
  };
  double other_cpu_s = 0;
  m.records = search ? search(progress, other_cpu_s)
                     : measure_curve(net, data, s, out + ".journal", resume, progress);
  if (const std::optional<TrialRecord> r = noise_trial_of(m.records)) {
    log << "  B_simple: re-running batch " << r->batch << " trial " << r->trial << " with a noise probe\n";
    m.noise = measure_noise(net, data, s, *r);
    m.noise_trial = r->trial;
  }
  m.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  m.cpu_s = process_cpu_s() - cpu0 + other_cpu_s;
  m.load_end = load_average_1min();

  double trial_s = 0;
  for (const TrialRecord& r : m.records) trial_s += r.wall_s;
  std::ostringstream c;
  char buf[512];
  c << "provenance: " << info.command << "\n";
  c << "workload: " << info.workload_name << " (" << info.workload_path << ")\n";
  c << "protocol_name: " << info.protocol << "\n";
  c << "fingerprint: " << info.fingerprint << "\n";
  c << "seed: " << s.seed << "\n";
  c << "date: " << utc_now() << "\n";
  c << "batches: " << join_batches(s.batches) << "; trials: " << s.trials << "\n";
  c << "search: " << journal_fingerprint(s) << "\n";
  c << "protocol: Shallue et al. 2018; Halton points 1..N, lr and 1-momentum log-uniform; a batch "
       "size's trials run in order " << to_string(s.order) << " and each stops at the best earlier "
       "trial's step count (pruned); evaluation every ceil(eval_samples/M) steps (eval_samples = "
    << s.eval_samples << ", 0 = every " << s.base.eval_every << " steps); budget min(" << s.base.max_steps
    << ", " << s.budget_steps << " + ceil(" << s.budget_samples << "/M)) steps (0 + 0 = "
    << s.base.max_steps << "); steps = inf for trials that diverged, ran out of budget or were pruned\n";
  if (m.noise) {
    std::snprintf(buf, sizeof buf, "%.6g", m.noise->b_simple());
    c << "b_simple: " << buf << "\n";
    std::snprintf(buf, sizeof buf,
                  "McCandlish et al. 2018 two-batch estimator (B_small = %lld, B_big = %lld) at %lld "
                  "points of batch %lld trial %lld (its best) up to its target; mean |G|^2 = %.6g, "
                  "mean tr(Sigma) = %.6g",
                  static_cast<long long>(m.noise->batch), static_cast<long long>(2 * m.noise->batch),
                  static_cast<long long>(m.noise->probes), static_cast<long long>(m.noise->batch),
                  static_cast<long long>(m.noise_trial), m.noise->g2, m.noise->trace_sigma);
    c << "b_simple_method: " << buf << "\n";
  } else {
    c << "b_simple: none (no batch size reached the target)\n";
  }
  std::snprintf(buf, sizeof buf,
                "%.1f s wall, %.1f s CPU (all threads and processes) this run; load average %.2f at start, %.2f at "
                "end; %.1f s of trial wall time in all",
                m.wall_s, m.cpu_s, m.load_start, m.load_end, trial_s);
  c << "cost: " << buf << "\n";
  write_file_atomic(out, format_curve_csv(m.records, c.str()));
  return m;
}

std::vector<CurvePoint> cached_or_measured_curve(const WorkloadSpec& w, std::ostream& log) {
  const int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return cached_or_measured_curve(w, curve_protocol(w.step_curve.protocol, w.source_file), jobs, log);
}

bool curve_cache_current(const std::string& path, const std::string& fingerprint, std::string* why) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (why) *why = "not measured yet";
    return false;
  }
  const auto prov = read_curve_provenance(path);
  const auto it = prov.find("fingerprint");
  if (it != prov.end() && it->second == fingerprint) return true;
  if (why)
    *why = "made with other settings (fingerprint " + (it == prov.end() ? std::string("none") : it->second) +
           ", this workload's is " + fingerprint + ")";
  return false;
}

bool curve_measuring_forbidden() {
  const char* no = std::getenv("KP_NO_CURVE_MEASURE");
  return no && *no;
}

void check_batches_fit(const CurveSearchSpec& s, const Dataset& data, const std::string& origin,
                       const std::string& prefix) {
  for (int64_t b : s.batches)
    if (b > data.train.n)
      throw ConfigError(origin, prefix + "batch " + std::to_string(b) + " exceeds the training split (" +
                                    std::to_string(data.train.n) + " samples)");
}

CurveRunInfo workload_curve_info(const WorkloadSpec& w, const std::string& protocol,
                                 const std::string& fingerprint) {
  return {"kneepoint (step_curve.source: measure of " + w.source_file + ")", protocol, fingerprint,
          w.name, w.source_file};
}

std::vector<CurvePoint> cached_or_measured_curve(const WorkloadSpec& w, const CurveProtocol& protocol,
                                                 int jobs, std::ostream& log) {
  const StepCurveSpec& sc = w.step_curve;
  const CurveSearchSpec s = curve_search_spec(w, protocol, sc.seed, jobs);
  ResolvedNetwork net = resolve_network(w.network);  // parse_workload() checked it
  const std::string fp = curve_fingerprint(w, net, s, protocol.name);
  std::string why;
  if (curve_cache_current(sc.path, fp, &why)) return read_curve_csv(sc.path);
  if (curve_measuring_forbidden())
    throw ConfigError(w.source_file, "step_curve.path " + sc.path + ": " + why +
                                         ", and KP_NO_CURVE_MEASURE forbids measuring it here: run "
                                         "`kneepoint curve --workload " + w.source_file + "`");
  const CurveCacheLock lock(sc.path);
  if (!lock.held())
    throw ConfigError(sc.path + ".lock", std::string("cannot lock: ") + std::strerror(errno));
  if (curve_cache_current(sc.path, fp, &why)) return read_curve_csv(sc.path);  // made meanwhile
  log << "step curve " << sc.path << ": " << why << ": measuring it (protocol " << protocol.name << ")\n";
  const Dataset data = load_workload_dataset(w, "", s.seed);
  check_batches_fit(s, data, w.source_file, "step_curve.protocol " + protocol.name + ": ");
  const std::string journal = sc.path + ".journal";
  struct stat st {};
  if (::stat(journal.c_str(), &st) == 0 && !journal_matches(journal, journal_fingerprint(s))) {
    log << "step curve journal " << journal << " was made with other settings: starting it over\n";
    if (std::remove(journal.c_str()) != 0)
      throw ConfigError(journal, "cannot remove the journal of other settings");
  }
  const CurveMeasurement m = measure_and_write_curve(net, data, s, workload_curve_info(w, protocol.name, fp),
                                                     sc.path, true, log);
  log << "step curve " << sc.path << " written (" << m.records.size() << " trials, "
      << std::lround(m.wall_s) << " s wall)\n";
  return read_curve_csv(sc.path);
}

}  // namespace kp
