// `kneepoint fit`: fits N(M) = N_inf + alpha/M to a step curve (a CSV of trials, or Pollux
// validation traces at an accuracy threshold) and prints the law, its bootstrap intervals, R^2,
// the regimes and the maximum useful batch size. See models/step_curve/step_law_fit.h.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/config_error.h"
#include "core/json_writer.h"
#include "models/step_curve/csv_table.h"
#include "models/step_curve/curve_csv.h"
#include "models/step_curve/pollux_trace.h"
#include "models/step_curve/published_curve.h"
#include "models/step_curve/step_law_fit.h"
#include "tools/cli_common.h"
#include "tools/commands.h"
#include "tools/fit_extras.h"

namespace kp {
namespace {

struct PolluxInfo {
  double threshold = 0.0;
  bool default_threshold = false;
  std::vector<double> batch, b_simple;
  double b_simple_median = 0.0;
};

void json_estimate(JsonWriter& j, const std::string& key, const Estimate& e) {
  j.key(key).begin_object().key("value").value(e.value).key("lo").value(e.lo).key("hi").value(e.hi).end_object();
}

// How many measured points fall in each regime: Shallue et al. 2018 see all three in every workload;
// a missing one means the batch range should be widened.
std::vector<int> regime_counts(const StepLawFit& fit) {
  std::vector<int> counts(3, 0);
  for (const CurvePoint& p : fit.points) ++counts[static_cast<int>(regime_of(fit.law, p.batch))];
  return counts;
}

const Regime kRegimes[] = {Regime::perfect_scaling, Regime::diminishing_returns, Regime::plateau};

void print_text(std::ostream& out, const std::string& source, const StepLawFit& fit,
                const FitOptions& options, const PolluxInfo* pollux) {
  out << "step curve: " << source << " (" << fit.points.size() << " batch sizes";
  if (!fit.dropped_batches.empty()) out << ", " << fit.dropped_batches.size() << " dropped: all trials failed";
  out << ")\n";
  if (pollux)
    out << "  steps to validation accuracy >= " << num(pollux->threshold, "%.4f")
        << (pollux->default_threshold ? " (the best accuracy of the worst run)" : "") << "\n";
  out << "law: N(M) = N_inf + alpha/M, least squares in log space; " << num(options.confidence * 100, "%g")
      << "% percentile bootstrap, " << fit.resamples << " resamples over " << fit.bootstrap_method
      << ", seed " << options.seed << "\n";
  auto row = [&](const char* name, const Estimate& e) {
    out << "  " << name << num(e.value) << "  [" << num(e.lo) << ", " << num(e.hi) << "]\n";
  };
  row("N_inf          ", fit.n_inf);
  row("alpha          ", fit.alpha);
  row("B_crit         ", fit.b_crit);
  out << "  R^2 (log N)    " << num(fit.r2_log, "%.4f") << "  (rms log residual " << num(fit.rmse_log, "%.3g")
      << ")\n";
  out << "regimes: perfect scaling M <= B_crit/9 = " << num(fit.perfect_scaling_max_batch(), "%.0f")
      << "; plateau M >= 10 B_crit = " << num(fit.plateau_min_batch(), "%.0f")
      << " (N <= 1.1 N_inf); diminishing returns between\n";
  out << "max useful batch size: " << num(fit.max_useful_batch.value, "%.0f") << "  ["
      << num(fit.max_useful_batch.lo, "%.0f") << ", " << num(fit.max_useful_batch.hi, "%.0f") << "]\n";
  const double lo = fit.points.front().batch, hi = fit.points.back().batch;
  if (!(fit.law.b_crit() >= lo && fit.law.b_crit() <= hi))
    out << "note: B_crit lies outside the measured batch range [" << num(lo) << ", " << num(hi)
        << "]: the knee is an extrapolation\n";
  const std::vector<int> counts = regime_counts(fit);
  out << "measured points per regime:";
  for (int r = 0; r < 3; ++r) out << (r ? ", " : " ") << to_string(kRegimes[r]) << " " << counts[r];
  out << "\n";
  for (int r = 0; r < 3; ++r)
    if (counts[r] == 0)
      out << "note: no measured batch size in the " << to_string(kRegimes[r])
          << " regime; widen the batch range to see it\n";
  out << "  batch      steps     fitted  regime\n";
  for (const CurvePoint& p : fit.points) {
    char line[160];
    std::snprintf(line, sizeof line, "  %6.0f %10.0f %10.0f  %s\n", p.batch, p.steps,
                  fit.law.steps(p.batch), to_string(regime_of(fit.law, p.batch)));
    out << line;
  }
  if (pollux) {
    out << "gradient noise scale B_simple = 128 mean(grad_var)/mean(grad_sqr) per run:";
    for (std::size_t i = 0; i < pollux->batch.size(); ++i)
      out << " " << num(pollux->batch[i], "%.0f") << ":" << num(pollux->b_simple[i], "%.0f");
    out << "; median " << num(pollux->b_simple_median, "%.0f") << " (vs fitted B_crit "
        << num(fit.b_crit.value, "%.0f") << ")\n";
  }
}

// The fit's members (the caller opens and closes the object, so that the extras can follow).
void print_json(JsonWriter& j, const std::string& source, const StepLawFit& fit, const FitOptions& options,
                const PolluxInfo* pollux) {
  j.key("source").value(source).key("fit_space").value("log");
  json_estimate(j, "n_inf", fit.n_inf);
  json_estimate(j, "alpha", fit.alpha);
  json_estimate(j, "b_crit", fit.b_crit);
  json_estimate(j, "max_useful_batch", fit.max_useful_batch);
  j.key("r2_log").value(fit.r2_log).key("rmse_log").value(fit.rmse_log);
  j.key("bootstrap").begin_object().key("method").value(fit.bootstrap_method);
  j.key("resamples").value(static_cast<int64_t>(fit.resamples)).key("seed").value(static_cast<int64_t>(options.seed));
  j.key("confidence").value(options.confidence).end_object();
  j.key("regimes").begin_object().key("perfect_scaling_max_batch").value(fit.perfect_scaling_max_batch());
  j.key("plateau_min_batch").value(fit.plateau_min_batch()).key("points").begin_object();
  const std::vector<int> counts = regime_counts(fit);
  for (int r = 0; r < 3; ++r) j.key(to_string(kRegimes[r])).value(counts[r]);
  j.end_object().end_object();
  j.key("points").begin_array();
  for (const CurvePoint& p : fit.points)
    j.begin_object().key("batch").value(p.batch).key("steps").value(p.steps).key("fitted").value(fit.law.steps(p.batch))
        .key("regime").value(to_string(regime_of(fit.law, p.batch))).end_object();
  j.end_array().key("dropped_batches").begin_array();
  for (double b : fit.dropped_batches) j.value(b);
  j.end_array();
  if (pollux) {
    j.key("pollux").begin_object().key("threshold").value(pollux->threshold);
    j.key("default_threshold").value(pollux->default_threshold).key("b_simple").begin_array();
    for (std::size_t i = 0; i < pollux->batch.size(); ++i)
      j.begin_object().key("batch").value(pollux->batch[i]).key("b_simple").value(pollux->b_simple[i]).end_object();
    j.end_array().key("b_simple_median").value(pollux->b_simple_median).end_object();
  }
}

// The curves a published-steps file holds, as "optimizer at target (measure, runs)" for errors.
std::string published_groups(const std::vector<PublishedRun>& runs) {
  std::map<std::string, int> groups;
  for (const PublishedRun& r : runs)
    ++groups[r.optimizer + " --target " + num(r.target, "%g") +
             (r.measure == PublishedMeasure::schedule ? " (schedule)" : "")];
  std::string out;
  for (const auto& [g, n] : groups) out += (out.empty() ? "" : "; ") + ("--optimizer " + g) + " x" + std::to_string(n);
  return out;
}

// A published-steps file (published_curve.h) mixes optimizers and targets, so one curve is
// picked: its to_target runs, averaged per batch size (seeds of one setting, not a search).
std::vector<CurvePoint> published_points(const std::string& path, const std::string& optimizer, double target) {
  const std::vector<PublishedRun> runs = read_published_curve(path);
  if (optimizer.empty() || std::isnan(target))
    throw ConfigError("kneepoint fit", path + " holds published runs of several curves: give --optimizer and "
                                       "--target to fit one (here: " + published_groups(runs) + ")");
  const std::vector<CurvePoint> picked = select_runs(runs, optimizer, PublishedMeasure::to_target, target);
  if (picked.empty())
    throw ConfigError("kneepoint fit", "--optimizer " + optimizer + " --target " + num(target, "%g") +
                                           ": no to_target runs in " + path + " (here: " + published_groups(runs) + ")");
  return mean_per_batch(picked);
}

}  // namespace

int run_fit(const Args& args) {
  std::string curve, pollux_dir, format = "text", write_curve;
  double threshold = std::nan(""), target = std::nan("");
  std::string optimizer;
  FitOptions options;
  po::options_description desc("options");
  desc.add_options()
      ("curve", po::value(&curve), "step-curve CSV (columns batch,steps; one row per trial)")
      ("pollux", po::value(&pollux_dir), "directory of Pollux validation-<B>.csv traces instead of a CSV")
      ("threshold", po::value(&threshold),
       "with --pollux: validation accuracy to reach (default: the best accuracy of the worst run)")
      ("optimizer", po::value(&optimizer),
       "published-steps CSV (columns target,optimizer,measure): the optimizer of the curve to fit")
      ("target", po::value(&target), "published-steps CSV: the target of the curve to fit (e.g. 0.759)")
      ("format", po::value(&format), "text | json")
      ("bootstrap", po::value(&options.bootstrap_resamples), "bootstrap resamples (default 1000; 0 = none)")
      ("seed", po::value<int64_t>(), "bootstrap seed (default 1)")
      ("write-curve", po::value(&write_curve), "write the per-batch curve that was fitted to this CSV");
  po::positional_options_description positional;
  positional.add("curve", 1);
  po::variables_map vm;
  if (!parse_options("fit", "kneepoint fit CURVE.csv [--optimizer O --target T] | --pollux DIR [--threshold X] [--format text|json]",
                     args, desc, vm, &positional))
    return 0;
  if (curve.empty() == pollux_dir.empty())
    throw ConfigError("kneepoint fit", "give exactly one of CURVE.csv or --pollux DIR");
  if (format != "text" && format != "json")
    throw ConfigError("kneepoint fit", "--format: expected text or json, got \"" + format + "\"");
  if (vm.count("threshold") && pollux_dir.empty())
    throw ConfigError("kneepoint fit", "--threshold applies to --pollux traces only");
  if ((vm.count("optimizer") || vm.count("target")) && !pollux_dir.empty())
    throw ConfigError("kneepoint fit", "--optimizer and --target apply to a published-steps CSV, not --pollux");
  if (options.bootstrap_resamples < 0)
    throw ConfigError("kneepoint fit", "--bootstrap: expected an integer >= 0");
  options.seed = seed_option(vm, options.seed);

  std::vector<CurvePoint> trials;
  PolluxInfo pollux;
  CurveExtras extras;
  std::string source;
  if (!pollux_dir.empty()) {
    const std::vector<PolluxRun> runs = read_pollux_traces(pollux_dir);
    pollux.default_threshold = std::isnan(threshold);
    pollux.threshold = pollux.default_threshold ? pollux_default_threshold(runs) : threshold;
    trials = pollux_step_curve(runs, pollux.threshold);
    for (const PolluxRun& run : runs) {
      pollux.batch.push_back(run.batch);
      pollux.b_simple.push_back(run.b_simple());
    }
    std::vector<double> sorted = pollux.b_simple;
    std::sort(sorted.begin(), sorted.end());
    const std::size_t n = sorted.size();
    pollux.b_simple_median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    source = pollux_dir;
  } else {
    const bool published = read_csv_table(curve).find("measure") >= 0;
    if (!published && (vm.count("optimizer") || vm.count("target")))
      throw ConfigError("kneepoint fit", "--optimizer and --target apply to a published-steps CSV (columns "
                                         "target,optimizer,measure); " + curve + " has no `measure` column");
    trials = published ? published_points(curve, optimizer, target) : read_curve_csv(curve);
    source = curve;
    extras = read_curve_extras(curve);
  }
  options.origin = source;
  const StepLawFit fit = fit_step_law(trials, options);
  if (!write_curve.empty()) {
    std::ostringstream comment;
    if (pollux_dir.empty()) {
      comment << "written by: kneepoint fit " << source << " --write-curve " << write_curve
              << "\nsteps: minimum over the trials of each batch size";
    } else {
      comment << "written by: kneepoint fit --pollux " << source << " --threshold "
              << num(pollux.threshold, "%.4g") << " --write-curve " << write_curve
              << "\nsteps: first `iteration` whose validation metric >= " << num(pollux.threshold, "%.4g");
    }
    write_curve_csv(write_curve, fit.points, comment.str());
  }
  if (format == "json") {
    JsonWriter j(true);
    j.begin_object();
    print_json(j, source, fit, options, pollux_dir.empty() ? nullptr : &pollux);
    print_extras_json(j, extras);
    std::cout << j.end_object().str() << "\n";
  } else {
    print_text(std::cout, source, fit, options, pollux_dir.empty() ? nullptr : &pollux);
    print_extras_text(std::cout, fit, extras);
  }
  return 0;
}

}  // namespace kp
