// `kneepoint curve`: measures a workload's step curve by Shallue et al. 2018's protocol
// (models/step_curve/measure/curve_measure.h): quasi-random search of learning rate and momentum
// per batch size, steps to the target validation error, minimum over trials. A named protocol
// (--protocol full|quick, curve_protocol.h) fixes the batch sizes, trials and cost rules; any
// explicit flag overrides it and the curve is then labelled `custom`. Every finished trial is
// journaled next to --out (FILE.journal), so `--resume` after a kill redoes only the trials that
// were running; the curve CSV (one row per trial, provenance and B_simple in `#` lines) is written
// atomically (models/step_curve/measure/curve_cache.h). Prints the wall time at the end.
#include <boost/program_options.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "core/config_error.h"
#include "core/limits.h"
#include "core/workload_spec.h"
#include "models/step_curve/measure/curve_cache.h"
#include "models/step_curve/step_law_fit.h"
#include "tools/cli_common.h"
#include "tools/curve_mpi.h"
#include "tools/commands.h"

namespace kp {
namespace {

std::string default_out(const std::string& workload_path) {
  std::string stem = workload_path;
  const auto dot = stem.rfind('.');
  if (dot != std::string::npos && stem.find('/', dot) == std::string::npos) stem.resize(dot);
  return stem + "_curve.csv";
}

}  // namespace

int run_curve(const Args& args) {
  po::options_description desc("kneepoint curve options");
  desc.add_options()
      ("workload", po::value<std::string>()->required(), "workload YAML file")
      ("protocol", po::value<std::string>(),
       "full (10 batch sizes 16..8192 x 16 trials) | quick (5 batch sizes 16..2048 x 8); default: the "
       "workload's step_curve.protocol, else full; the flags below override it")
      ("batches", po::value<std::string>(), "batch sizes: \"16,32,64\" or \"16..4096\" (powers of two)")
      ("trials", po::value<int>(), "quasi-random trials per batch size")
      ("target-error", po::value<double>(), "target validation error (default: the workload's)")
      ("max-steps", po::value<int64_t>(), "step budget cap per trial (default: target.max_steps)")
      ("eval-every", po::value<int64_t>(), "steps between evaluations (with --eval-samples 0)")
      ("eval-samples", po::value<int64_t>(), "evaluate every ceil(S/M) steps; 0 = --eval-every")
      ("budget-steps", po::value<int64_t>(), "budget rule min(max-steps, A + ceil(B/M)): A")
      ("budget-samples", po::value<int64_t>(), "budget rule: B (samples); A = B = 0: max-steps")
      ("order", po::value<std::string>(), "trial order: halton | effective_lr_desc")
      ("out", po::value<std::string>(), "curve CSV (default: the workload's step_curve.path if its "
       "source is measure, else <workload>_curve.csv)")
      ("resume", "continue from the journal <out>.journal")
      ("jobs", po::value<int>()->default_value(1), "worker threads, one trial each")
      ("seed", po::value<int64_t>(), "seed of trial i is seed + i (default: step_curve.seed, else 1)")
      ("no-prune", "train every trial to the target or budget (no early stop)")
      ("data", po::value<std::string>(), "folder of the IDX files (overrides dataset.path)");
  po::variables_map vm;
  if (!parse_options("curve", "kneepoint curve --workload F [options]", args, desc, vm)) return 0;
  const std::string path = vm["workload"].as<std::string>();
  const WorkloadSpec w = parse_workload(ConfigDoc::load(path));

  // With no flags, a workload whose curve source is measure gets exactly its cache: same protocol,
  // seed and path, so the fingerprint matches (models/step_curve/measure/curve_cache.h).
  const bool measured = w.step_curve.source == StepCurveSource::Measure;
  CurveProtocol protocol = curve_protocol(
      vm.count("protocol") ? vm["protocol"].as<std::string>() : measured ? w.step_curve.protocol : "full");
  bool custom = false;
  auto set = [&](const char* key, auto& field) {
    if (!vm.count(key)) return;
    field = vm[key].as<std::remove_reference_t<decltype(field)>>();
    custom = true;
  };
  if (vm.count("batches")) {
    protocol.batches = parse_int_list("batches", vm["batches"].as<std::string>(), limits::kBatch);
    custom = true;
  }
  set("trials", protocol.trials);
  set("eval-samples", protocol.eval_samples);
  set("budget-steps", protocol.budget_steps);
  set("budget-samples", protocol.budget_samples);
  if (vm.count("order")) {
    const std::string o = vm["order"].as<std::string>();
    if (o == "halton") protocol.order = TrialOrder::halton;
    else if (o == "effective_lr_desc") protocol.order = TrialOrder::effective_lr_desc;
    else throw ConfigError("--order", "expected halton or effective_lr_desc, got \"" + o + "\"");
    custom = true;
  }
  const uint64_t seed = seed_option(vm, measured ? w.step_curve.seed : 1);
  CurveSearchSpec s = curve_search_spec(w, protocol, seed, vm["jobs"].as<int>());
  set("target-error", s.base.target_error);
  set("max-steps", s.base.max_steps);
  set("eval-every", s.base.eval_every);
  s.prune = !vm.count("no-prune");
  custom = custom || !s.prune;
  if (custom) protocol.name = "custom";
  checked_option("--trials", s.trials, 1, limits::pow2(16));
  jobs_option("--jobs", s.jobs);
  checked_option("--max-steps", s.base.max_steps, 1, limits::kSteps);
  checked_option("--eval-every", s.base.eval_every, 1, limits::kSteps);
  checked_option("--eval-samples", s.eval_samples, 0, limits::kSteps);
  checked_option("--budget-steps", s.budget_steps, 0, limits::kSteps);
  checked_option("--budget-samples", s.budget_samples, 0, limits::kSteps);
  if (!(s.base.target_error > 0 && s.base.target_error < 1))
    throw ConfigError("--target-error", "expected a number in (0, 1)");
  const std::string out = vm.count("out") ? vm["out"].as<std::string>()
                          : measured         ? w.step_curve.path
                                             : default_out(path);

  const Dataset data =
      load_workload_dataset(w, vm.count("data") ? vm["data"].as<std::string>() : "", s.seed);
  ResolvedNetwork net;
  try {
    net = resolve_network(w.network);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(path, e.what());
  }
  check_batches_fit(s, data, "--batches", "");

  std::string cmd = "kneepoint curve";
  for (const std::string& a : args) cmd += " " + a;
  const CurveRunInfo info{cmd, protocol.name, curve_fingerprint(w, net, s, protocol.name), w.name, path};
  // Under mpirun -np N the ranks share the batch sizes; rank 0 alone goes on (tools/curve_mpi.h).
  int exit_code = 0;
  const std::optional<CurveMeasurement> measured_here =
      measure_curve_cli(net, data, s, info, out, vm.count("resume") > 0, exit_code);
  if (!measured_here) return exit_code;
  const CurveMeasurement& m = *measured_here;

  std::cout << "    batch  steps_to_target\n";
  for (const auto& [batch, steps] : steps_to_target(m.records)) {
    char line[64];
    std::snprintf(line, sizeof line, "%9lld  %15s\n", static_cast<long long>(batch),
                  std::isfinite(steps) ? std::to_string(static_cast<long long>(steps)).c_str() : "inf");
    std::cout << line;
  }
  std::vector<CurvePoint> points;
  for (const TrialRecord& r : m.records)
    points.push_back({double(r.batch), r.steps ? double(*r.steps) : INFINITY});
  try {
    FitOptions fo;
    fo.origin = out;
    const StepLawFit fit = fit_step_law(points, fo);
    std::printf("fit N(M) = N_inf + alpha/M (log space, 95%% bootstrap over trials): N_inf %.4g [%.4g, %.4g] "
                "steps, alpha %.4g [%.4g, %.4g] samples, B_crit %.4g [%.4g, %.4g] samples, R^2 %.4f\n",
                fit.n_inf.value, fit.n_inf.lo, fit.n_inf.hi, fit.alpha.value, fit.alpha.lo, fit.alpha.hi,
                fit.b_crit.value, fit.b_crit.lo, fit.b_crit.hi, fit.r2_log);
  } catch (const ConfigError& e) {
    std::printf("no fit: %s\n", e.what());
  }
  if (m.noise)
    std::printf("B_simple %.4g samples (McCandlish two-batch estimator, batch %lld trial %lld, %lld probes)\n",
                m.noise->b_simple(), static_cast<long long>(m.noise->batch),
                static_cast<long long>(m.noise_trial), static_cast<long long>(m.noise->probes));
  std::fflush(stdout);
  std::printf("wrote %s (%zu trials, protocol %s); wall time %.1f s, CPU time %.1f s, load average "
              "%.2f -> %.2f\n",
              out.c_str(), m.records.size(), protocol.name.c_str(), m.wall_s, m.cpu_s, m.load_start,
              m.load_end);
  return 0;
}

}  // namespace kp
