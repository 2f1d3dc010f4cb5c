// kneepoint predict: T(M, P) over grids, the best M per P, the knee and B_crit.
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "core/config_error.h"
#include "core/json_writer.h"
#include "core/limits.h"
#include "sim/analytic/collective_analytic.h"
#include "models/time_model/power_model.h"
#include "models/time_model/time_model.h"
#include "tools/cli_common.h"
#include "tools/report/report_writer.h"
#include "tools/study/case_loader.h"

namespace kp {

int run_predict(const Args& args) {
  po::options_description desc("predict options");
  std::string hw, workload, format, batches, learners, layout_text;
  double knee = 0.1;
  std::vector<std::string> sets;
  desc.add_options()("hw", po::value(&hw)->required(), "hardware YAML")(
      "workload", po::value(&workload)->required(), "workload YAML")(
      "batches", po::value(&batches)->default_value("1..65536"), "M grid: 1,2,4 or 1..65536 (powers of 2)")(
      "learners", po::value(&learners)->default_value("1..4096"), "P grid (capped by the system)")(
      "knee-threshold", po::value(&knee)->default_value(0.1), "doubling P must gain more than this")(
      "format", po::value(&format)->default_value("text"), "text|json|csv")(
      "layout", po::value(&layout_text), "parallel layout (as simulate --layout) or search: the best per point")(
      "set", po::value(&sets)->composing(), "dotted.key=value override (repeatable)");
  po::variables_map vm;
  if (!parse_options("predict", "kneepoint predict --hw F --workload F [--batches L] [--learners L]", args,
                     desc, vm))
    return 0;
  if (format != "text" && format != "json" && format != "csv")
    throw ConfigError("--format", "expected text, json or csv, got \"" + format + "\"");
  if (!(knee > 0 && knee < 1)) throw ConfigError("--knee-threshold", "expected a number in (0, 1)");
  LayoutChoice layout;
  if (!layout_text.empty()) layout = parse_layout_text(layout_text, "--layout");
  const Case c = load_case(hw, workload, sets);
  if (const std::string why = memory_problem(c.hw, c.step, c.precision.bytes); layout_text.empty() && !why.empty())
    throw ConfigError({Diagnostic{hw, 0, 0, "chip.memory.dram.capacity", why}});
  const auto model = make_update_model(c, "analytic", layout_text.empty() ? nullptr : &layout);
  PredictOptions opt;
  opt.batches = parse_int_list("batches", batches, limits::kBatch);
  const std::vector<int64_t> asked = parse_int_list("learners", learners, limits::kLearners);
  const int64_t max_batch = *std::max_element(opt.batches.begin(), opt.batches.end());
  // A range is capped by the system and by the batches; a list names counts the user wants.
  if (learners.find("..") == std::string::npos)
    for (int64_t p : asked) {
      if (const std::string why = learners_problem(c.hw.interconnect, p); layout_text.empty() && !why.empty())
        throw ConfigError("--learners", why + " (" + hw + ")");
      if (p > max_batch)
        throw ConfigError("--learners", std::to_string(p) + " learners need a global batch of at least " +
                                            std::to_string(p) + " samples (one per learner); the largest in "
                                            "--batches is " + std::to_string(max_batch));
    }
  for (int64_t p : layout_text.empty() ? learners_allowed(c.hw, asked) : asked)
    if (p <= max_batch && p <= c.hw.interconnect.max_learners) opt.learners.push_back(p);
  opt.knee_threshold = knee;
  if (opt.learners.empty())
    throw ConfigError("--learners", "no learner count in the grid fits " + hw + " with at least one sample per "
                                    "learner in the largest batch (" + std::to_string(max_batch) + ")");
  Prediction p;
  try {
    p = predict(*model, c.law, c.hw, opt);
  } catch (const std::invalid_argument& e) {  // every point infeasible: a design that does not fit
    throw ConfigError({Diagnostic{hw, 0, 0, "chip.memory.dram.capacity",
                                  std::string(e.what()) + " (the --layout given, on this hardware)"}});
  }
  if (format == "csv") {
    std::printf("batch,learners,per_learner_batch,steps,t_update_s,t_total_s,energy_j,cost_usd,"
                "avg_chip_power_w,power_clock_scale,fits,layout,memory_GiB\n");
    for (const TimePoint& t : p.points)
      std::printf("%lld,%lld,%lld,%.9g,%.9g,%.9g,%.9g,%.9g,%.6g,%.6g,%d,%s,%.6g\n", static_cast<long long>(t.batch),
                  static_cast<long long>(t.learners), static_cast<long long>(t.per_learner_batch), t.steps,
                  t.t_update_s, t.t_total_s, t.energy_j, t.cost_usd, t.average_chip_power_w(),
                  t.breakdown.power_clock_scale, t.fits ? 1 : 0,
                  t.layout.text().c_str(), t.memory.total() / 1073741824.0);
    if (const std::string w = tdp_warning(c.hw, p.overall_best.average_chip_power_w()); !w.empty())
      std::fprintf(stderr, "%s\n", w.c_str());
    return 0;
  }
  if (format == "json") {
    JsonWriter j;
    j.begin_object().key("b_crit").value(p.b_crit);
    j.key("constants").value(c.hw.calibration.present ? "calibrated" : "spec-only").key("calibrated_from");
    if (c.hw.calibration.present) j.value(c.hw.calibration.file); else j.null();
    j.key("static_power_modelled").value(c.hw.power.modelled).key("tdp_w");
    if (c.hw.power.tdp_w > 0) j.value(c.hw.power.tdp_w); else j.null();
    j.key("knee_learners");
    if (p.knee_learners) j.value(p.knee_learners); else j.null();
    auto point = [&](const TimePoint& t) {
      j.begin_object().key("batch").value(t.batch).key("learners").value(t.learners);
      j.key("steps").value(t.steps).key("t_update_s").value(t.t_update_s).key("t_total_s").value(t.t_total_s);
      j.key("energy_j").value(t.energy_j).key("cost_usd").value(t.cost_usd);
      j.key("avg_chip_power_w").value(t.average_chip_power_w());
      j.key("power_clock_scale").value(t.breakdown.power_clock_scale);
      j.key("fits").value(t.fits).key("layout").value(t.layout.text());
      write_memory_json(j, t.memory);
      j.end_object();
    };
    j.key("best_per_learners").begin_array();
    for (const ScalingRow& r : p.scaling) point(r.best);
    j.end_array().key("points").begin_array();
    for (const TimePoint& t : p.points) point(t);
    j.end_array().end_object();
    std::cout << j.str() << "\n";
    return 0;
  }
  std::printf("%s on %s: B_crit = %.4g samples, knee = %s\n", c.workload.name.c_str(), c.hw.name.c_str(),
              p.b_crit, p.knee_learners ? (std::to_string(p.knee_learners) + " chips").c_str() : "none in grid");
  std::printf("device constants: %s\n", constants_provenance(c.hw.calibration).c_str());
  std::printf("%8s %12s %10s %14s %14s %9s %10s  %s\n", "chips", "best batch", "steps", "T_update", "total",
              "speed-up", "memory", "layout");
  for (const ScalingRow& r : p.scaling)
    std::printf("%8lld %12lld %10.0f %14s %14s %8.2fx %6.3g GiB  %s\n", static_cast<long long>(r.learners),
                static_cast<long long>(r.best.batch), r.best.steps, human_seconds(r.best.t_update_s).c_str(),
                human_seconds(r.best.t_total_s).c_str(), r.speedup, r.best.memory.total() / 1073741824.0,
                r.best.layout.text().c_str());
  const TimePoint& best = p.overall_best;
  std::printf("fastest: %lld chips, batch %lld: %s, %.4g kWh, $%.4g; average power per chip %s\n",
              static_cast<long long>(best.learners), static_cast<long long>(best.batch),
              human_seconds(best.t_total_s).c_str(), best.energy_j / 3.6e6, best.cost_usd,
              power_summary(c.hw, best.average_chip_power_w(), best.breakdown.power_clock_scale).c_str());
  if (const std::string w = tdp_warning(c.hw, best.average_chip_power_w()); !w.empty())
    std::fprintf(stderr, "%s\n", w.c_str());
  return 0;
}

}  // namespace kp
