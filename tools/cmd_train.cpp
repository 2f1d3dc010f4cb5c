// `kneepoint train`: one training trial of a workload's network on its dataset with the reference
// trainer (models/trainer), evaluating the validation error every K steps until the target or the
// step budget. Prints the validation curve, steps to target, wall time and mean time per update.
#include <boost/program_options.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>

#include "core/config_error.h"
#include "core/json_writer.h"
#include "core/limits.h"
#include "core/workload_spec.h"
#include "models/trainer/trainer.h"
#include "tools/cli_common.h"
#include "tools/commands.h"

namespace kp {
namespace {



OptimizerKind parse_optimizer(const std::string& s) {
  if (s == "sgd") return OptimizerKind::Sgd;
  if (s == "momentum") return OptimizerKind::Momentum;
  if (s == "nesterov") return OptimizerKind::Nesterov;
  throw ConfigError("--optimizer", "expected sgd, momentum or nesterov, got \"" + s + "\"");
}

void print_json(std::ostream& out, const std::string& workload, const TrialConfig& c,
                const TrialResult& r) {
  JsonWriter j(true);
  j.begin_object().key("workload").value(workload).key("batch").value(c.batch);
  j.key("learning_rate").value(c.optimizer.learning_rate).key("momentum").value(c.optimizer.momentum);
  j.key("seed").value(static_cast<int64_t>(c.seed)).key("target_error").value(c.target_error);
  j.key("steps_to_target");
  if (r.steps_to_target) j.value(static_cast<int64_t>(*r.steps_to_target));
  else j.null();
  j.key("steps").value(static_cast<int64_t>(r.steps)).key("diverged").value(r.diverged);
  j.key("wall_time_s").value(r.wall_time_s).key("mean_update_s").value(r.mean_update_s);
  j.key("validation_curve").begin_array();
  for (const ValidationPoint& p : r.curve)
    j.begin_object().key("step").value(static_cast<int64_t>(p.step)).key("validation_error").value(p.validation_error)
        .key("train_loss").value(p.train_loss).end_object();
  j.end_array().end_object();
  out << j.str() << "\n";
}

void print_text(std::ostream& out, const std::string& workload, const TrialConfig& c,
                const TrialResult& r) {
  out << "train " << workload << ": batch " << c.batch << ", lr " << c.optimizer.learning_rate
      << ", momentum " << c.optimizer.momentum << ", seed " << c.seed << "\n";
  out << "     step  val_error  train_loss\n";
  for (const ValidationPoint& p : r.curve) {
    char line[96];
    std::snprintf(line, sizeof line, "%9lld  %9.4f  %10.4f\n", static_cast<long long>(p.step),
                  p.validation_error, p.train_loss);
    out << line;
  }
  if (r.diverged) out << "diverged after " << r.steps << " steps\n";
  if (r.steps_to_target)
    out << "reached validation error <= " << c.target_error << " after " << *r.steps_to_target
        << " steps\n";
  else
    out << "did not reach validation error <= " << c.target_error << " in " << r.steps
        << " steps\n";
  out << "wall time " << r.wall_time_s << " s, mean update " << r.mean_update_s * 1e3 << " ms\n";
}

}  // namespace

int run_train(const Args& args) {
  po::options_description desc("kneepoint train options");
  desc.add_options()
      ("workload", po::value<std::string>()->required(), "workload YAML file")
      ("batch", po::value<int64_t>()->required(), "mini-batch size M")
      ("lr", po::value<double>()->required(), "learning rate")
      ("momentum", po::value<double>(), "momentum (default: the workload's)")
      ("optimizer", po::value<std::string>(), "sgd | momentum | nesterov (default: the workload's)")
      ("steps", po::value<int64_t>(), "step budget (default: target.max_steps)")
      ("target-error", po::value<double>(), "target validation error (default: the workload's)")
      ("eval-every", po::value<int64_t>(), "steps between evaluations (default: the workload's)")
      ("seed", po::value<int64_t>(), "seed for initialisation and shuffling (default 1)")
      ("data", po::value<std::string>(), "folder of the IDX files (overrides dataset.path)")
      ("format", po::value<std::string>()->default_value("text"), "text | json");
  po::variables_map vm;
  if (!parse_options("train", "kneepoint train --workload F --batch M --lr X [options]", args,
                     desc, vm))
    return 0;
  const std::string format = vm["format"].as<std::string>();
  if (format != "text" && format != "json")
    throw ConfigError("--format", "expected text or json, got \"" + format + "\"");
  const std::string path = vm["workload"].as<std::string>();
  const WorkloadSpec w = parse_workload(ConfigDoc::load(path));

  TrialConfig c = trial_config_from(w, vm["batch"].as<int64_t>());
  c.optimizer.learning_rate = vm["lr"].as<double>();
  if (vm.count("momentum")) c.optimizer.momentum = vm["momentum"].as<double>();
  if (vm.count("optimizer")) c.optimizer.kind = parse_optimizer(vm["optimizer"].as<std::string>());
  if (vm.count("steps")) c.max_steps = vm["steps"].as<int64_t>();
  if (vm.count("target-error")) c.target_error = vm["target-error"].as<double>();
  if (vm.count("eval-every")) c.eval_every = vm["eval-every"].as<int64_t>();
  c.seed = seed_option(vm, 1);
  // Written so that NaN fails every range: the workload's own values passed the same ranges in
  // parse_workload (target.validation_error in [0, 1]).
  checked_option("--batch", c.batch, 1, limits::kBatch);
  if (!(c.optimizer.learning_rate >= 1e-8 && c.optimizer.learning_rate <= 1e3))
    throw ConfigError("--lr", "expected a number in [1e-08, 1000] (as optimizer.learning_rate)");
  if (!(c.optimizer.momentum >= 0 && c.optimizer.momentum < 1))
    throw ConfigError("--momentum", "expected a number in [0, 1)");
  if (!(c.target_error >= 0 && c.target_error <= 1))
    throw ConfigError("--target-error", "expected a validation error in [0, 1]");
  if (c.optimizer.kind == OptimizerKind::Sgd) {
    // The workload's momentum belongs to its own optimizer; one asked for here would be ignored.
    if (vm.count("momentum") && c.optimizer.momentum != 0)
      throw ConfigError("--momentum", "plain sgd has no momentum; use --optimizer momentum or nesterov");
    c.optimizer.momentum = 0;
  }
  checked_option("--steps", c.max_steps, 1, limits::kSteps);
  checked_option("--eval-every", c.eval_every, 1, limits::kSteps);

  const std::string data_dir = vm.count("data") ? vm["data"].as<std::string>() : "";
  const Dataset data = load_workload_dataset(w, data_dir, c.seed);
  if (c.batch > data.train.n)
    throw ConfigError("--batch", "expected at most the training split's " +
                                     std::to_string(data.train.n) + " samples, got " +
                                     std::to_string(c.batch));
  ResolvedNetwork net;
  try {
    net = resolve_network(w.network);
    const TrialResult r = train_trial(net, data, c);
    if (format == "json")
      print_json(std::cout, w.name, c, r);
    else
      print_text(std::cout, w.name, c, r);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(path, e.what());
  }
  return 0;
}

}  // namespace kp
