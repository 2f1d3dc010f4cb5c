// `kneepoint curve`: measures a workload's step curve by Shallue et al. 2018's protocol
// (models/step_curve/measure/curve_measure.h): quasi-random search of learning rate and momentum
// per batch size, steps to the target validation error, minimum over trials. Every finished trial
// is journaled next to --out (FILE.journal), so `--resume` after a kill redoes only the trials that
// were running; the curve CSV (one row per trial, provenance in `#` lines) is written atomically.
#include <boost/program_options.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <mutex>
#include <stdexcept>
#include <string>

#include "core/atomic_file.h"
#include "core/config_error.h"
#include "core/workload_spec.h"
#include "models/step_curve/measure/curve_measure.h"
#include "tools/cli_common.h"
#include "tools/commands.h"

namespace kp {
namespace {


// The same data the train verb uses for a workload (cmd_train.cpp).

std::string default_out(const std::string& workload_path) {
  std::string stem = workload_path;
  const auto dot = stem.rfind('.');
  if (dot != std::string::npos && stem.find('/', dot) == std::string::npos) stem.resize(dot);
  return stem + "_curve.csv";
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace

int run_curve(const Args& args) {
  po::options_description desc("kneepoint curve options");
  desc.add_options()
      ("workload", po::value<std::string>()->required(), "workload YAML file")
      ("batches", po::value<std::string>()->default_value("16..4096"),
       "batch sizes: \"16,32,64\" or \"16..4096\" (powers of two)")
      ("trials", po::value<int>()->default_value(16), "quasi-random trials per batch size")
      ("target-error", po::value<double>(), "target validation error (default: the workload's)")
      ("max-steps", po::value<int64_t>(), "step budget per trial (default: target.max_steps)")
      ("eval-every", po::value<int64_t>(), "steps between evaluations (default: the workload's)")
      ("out", po::value<std::string>(), "curve CSV (default: <workload>_curve.csv)")
      ("resume", "continue from the journal <out>.journal")
      ("jobs", po::value<int>()->default_value(1), "worker threads, one trial each")
      ("seed", po::value<uint64_t>()->default_value(1), "seed of trial i is seed + i")
      ("no-prune", "train every trial to the target or budget (no early stop)")
      ("data", po::value<std::string>(), "folder of the IDX files (overrides dataset.path)");
  po::variables_map vm;
  if (!parse_options("curve", "kneepoint curve --workload F [options]", args, desc, vm)) return 0;
  const std::string path = vm["workload"].as<std::string>();
  const WorkloadSpec w = parse_workload(ConfigDoc::load(path));

  CurveSearchSpec s;
  s.batches = parse_int_list("batches", vm["batches"].as<std::string>());
  s.trials = vm["trials"].as<int>();
  s.base = trial_config_from(w, 1);
  if (vm.count("target-error")) s.base.target_error = vm["target-error"].as<double>();
  if (vm.count("max-steps")) s.base.max_steps = vm["max-steps"].as<int64_t>();
  if (vm.count("eval-every")) s.base.eval_every = vm["eval-every"].as<int64_t>();
  s.lr_min = w.optimizer.lr_min;
  s.lr_max = w.optimizer.lr_max;
  s.one_minus_momentum_min = w.optimizer.one_minus_momentum_min;
  s.one_minus_momentum_max = w.optimizer.one_minus_momentum_max;
  s.seed = vm["seed"].as<uint64_t>();
  s.jobs = vm["jobs"].as<int>();
  s.prune = !vm.count("no-prune");
  if (s.trials < 1) throw ConfigError("--trials", "expected an integer >= 1");
  if (s.jobs < 1) throw ConfigError("--jobs", "expected an integer >= 1");
  if (s.base.max_steps < 1) throw ConfigError("--max-steps", "expected an integer >= 1");
  if (s.base.eval_every < 1) throw ConfigError("--eval-every", "expected an integer >= 1");
  if (!(s.base.target_error > 0 && s.base.target_error < 1))
    throw ConfigError("--target-error", "expected a number in (0, 1)");
  const std::string out = vm.count("out") ? vm["out"].as<std::string>() : default_out(path);
  const std::string journal = out + ".journal";

  const Dataset data =
      load_workload_dataset(w, vm.count("data") ? vm["data"].as<std::string>() : "", s.seed);
  ResolvedNetwork net;
  try {
    net = resolve_network(w.network);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(path, e.what());
  }
  for (int64_t b : s.batches)
    if (b > data.train.n)
      throw ConfigError("--batches", "batch " + std::to_string(b) + " exceeds the training split (" +
                                         std::to_string(data.train.n) + " samples)");

  std::cerr << "curve " << w.name << ": " << s.batches.size() << " batch sizes x " << s.trials
            << " trials, target " << s.base.target_error << ", budget " << s.base.max_steps
            << " steps, " << s.jobs << " jobs; journal " << journal << "\n";
  const auto t0 = std::chrono::steady_clock::now();
  const auto progress = [](const TrialRecord& r) {
    std::fprintf(stderr, "  batch %6lld trial %3d  lr %-10.4g momentum %-8.4f  %-8s %8s  %.1f s\n",
                 static_cast<long long>(r.batch), r.trial, r.learning_rate, r.momentum,
                 to_string(r.outcome), r.steps ? std::to_string(*r.steps).c_str() : "-", r.wall_s);
  };
  const std::vector<TrialRecord> records =
      measure_curve(net, data, s, journal, vm.count("resume") > 0, progress);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::string cmd = "kneepoint curve";
  for (const std::string& a : args) cmd += " " + a;
  double trial_s = 0;
  for (const TrialRecord& r : records) trial_s += r.wall_s;
  char sums[160];
  std::snprintf(sums, sizeof sums, "wall time %.1f s this run, %.1f s of trials in all", wall, trial_s);
  const std::string comment =
      "provenance: " + cmd + "\nworkload: " + w.name + " (" + path + ")\nseed: " +
      std::to_string(s.seed) + "\ndate: " + utc_now() + "\nsearch: " + journal_fingerprint(s) +
      "\nprotocol: Shallue et al. 2018; Halton points 1..N, lr and 1-momentum log-uniform; "
      "steps = inf for trials that diverged, ran out of budget, or were pruned (stopped at the "
      "best earlier trial's step count of their batch size)\n" + sums;
  write_file_atomic(out, format_curve_csv(records, comment));

  std::cout << "    batch  steps_to_target\n";
  for (const auto& [batch, steps] : steps_to_target(records)) {
    char line[64];
    std::snprintf(line, sizeof line, "%9lld  %15s\n", static_cast<long long>(batch),
                  std::isfinite(steps) ? std::to_string(static_cast<long long>(steps)).c_str() : "inf");
    std::cout << line;
  }
  std::cout << "wrote " << out << " (" << records.size() << " trials); wall time " << wall << " s\n";
  return 0;
}

}  // namespace kp
