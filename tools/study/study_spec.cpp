#include "tools/study/study_spec.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/config_map.h"
#include "core/hw_spec.h"
#include "core/limits.h"
#include "core/workload_spec.h"
#include "models/time_model/time_model.h"
#include "tools/study/study_sweep.h"

namespace kp {
namespace {

using namespace limits;

std::vector<int64_t> parse_grid(ConfigMap& root, const std::string& key, int64_t max_value) {
  if (root.has_map(key)) {
    ConfigMap g = root.map(key);
    const int64_t from = g.integer("from", 1, max_value);
    const int64_t to = g.integer("to", 1, max_value);
    g.check_unknown();
    if (to < from) {
      g.error("to", "expected to >= from");
      return {from};
    }
    return powers_of_two(from, to);
  }
  return root.integer_list(key, 1, max_value);
}

// Every problem of each base file goes to the study's sink (one pass shows them all); the files
// that parse are kept for the sweep's checks. Returns the largest max_learners of the good ones.
int64_t check_base_files(ConfigMap& root, std::vector<std::string>& hardware, std::vector<std::string>& workloads) {
  int64_t largest = 0;
  auto keep = [&](std::vector<std::string>& files, bool is_workload) {
    std::vector<std::string> good;
    for (const std::string& f : files) {
      try {
        const ConfigDoc doc = ConfigDoc::load(f);
        if (is_workload) (void)parse_workload(doc);
        else largest = std::max(largest, parse_hardware(doc).interconnect.max_learners);
        good.push_back(f);
      } catch (const ConfigError& e) {
        for (const Diagnostic& d : e.diagnostics()) root.report(d);
      }
    }
    files = good;
  };
  keep(hardware, false);
  keep(workloads, true);
  return largest;
}

// Learner counts that no system of the study offers (an explicit list) or that no batch of the
// grid can feed (each learner needs at least one sample) are errors; a {from, to} range is capped
// by each system, so only its `from` is checked.
void check_learners(ConfigMap& root, const StudySpec& s, int64_t largest_system) {
  if (s.learners.empty() || s.batches.empty()) return;
  const int64_t max_batch = *std::max_element(s.batches.begin(), s.batches.end());
  const YAML::Node grid = root.node()["learners"];
  std::vector<std::pair<YAML::Node, int64_t>> checked;
  if (grid.IsMap()) checked.push_back({grid["from"], s.learners.front()});
  else
    for (size_t i = 0; i < grid.size() && i < s.learners.size(); ++i) checked.push_back({grid[i], s.learners[i]});
  for (const auto& [node, p] : checked) {
    const std::string key = grid.IsMap() ? "learners.from" : "learners";
    if (largest_system > 0 && p > largest_system)
      root.error_at(node, key, std::to_string(p) + " learners: more than any system of the study offers (the largest "
                                   "interconnect.max_learners is " + std::to_string(largest_system) + ")");
    else if (p > max_batch)
      root.error_at(node, key, std::to_string(p) + " learners need a global batch of at least " + std::to_string(p) +
                                   " samples (one per learner); the largest in batches is " + std::to_string(max_batch));
  }
}

// A study of more design points than a run could finish (or than size_t counts) is refused.
void check_design_count(ConfigMap& root, const StudySpec& s) {
  constexpr int64_t kMaxPoints = pow2(24);
  int64_t n = static_cast<int64_t>(std::max<size_t>(1, s.hardware.size() * s.workloads.size()));
  bool over = false;
  for (const SweepGroup& g : s.sweep)
    for (size_t i = 0; i < g.axes.size(); ++i) {
      if (g.zip && i > 0) break;
      n *= static_cast<int64_t>(std::max<size_t>(1, g.axes[i].values.size()));  // each <= 100001
      if (n > kMaxPoints) over = true;
      n = std::min(n, kMaxPoints + 1);
    }
  if (over) root.error("sweep", "more than " + format_limit(kMaxPoints) + " design points (hardware files x sweep "
                                "combinations x workloads)");
}

// The largest value a sweep gives interconnect.max_learners (0 when it is not swept).
int64_t swept_max_learners(const std::vector<SweepGroup>& sweep) {
  int64_t out = 0;
  for (const SweepGroup& g : sweep)
    for (const SweepAxis& a : g.axes)
      if (a.key == "interconnect.max_learners")
        for (const std::string& v : a.values) {
          int64_t n = 0;
          if (parse_int64(v, n)) out = std::max(out, n);
        }
  return out;
}

// A file the study names must exist: an error at the line that names it, with all the others.
bool readable_file(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) && std::ifstream(path).good();
}

// A non-empty list of file names under `key`, resolved against the study file's folder.
std::vector<std::string> parse_files(ConfigMap& root, const std::string& key) {
  std::vector<std::string> out;
  root.describe(key, "list of file names", false);
  const YAML::Node list = root.node()[key];
  if (!list || !list.IsSequence() || list.size() == 0) {
    root.error(key, "expected a non-empty list of file names");
    return out;
  }
  for (const YAML::Node& h : list) {
    if (!h.IsScalar()) {
      root.error_at(h, key, "expected a file name");
      continue;
    }
    const std::string path = resolve_relative(root.doc().path(), h.Scalar());
    if (readable_file(path)) out.push_back(path);
    else root.error_at(h, key, "cannot open " + path + " (does it exist?)");
  }
  return out;
}

std::vector<Objective> parse_objectives(ConfigMap& root) {
  std::vector<Objective> out;
  root.describe("objectives", "list of time, energy, cost", false);
  const YAML::Node list = root.node()["objectives"];
  if (!list) return {Objective::Time};
  if (!list.IsSequence() || list.size() == 0) {
    root.error("objectives", "expected a non-empty list of time, energy, cost");
    return {Objective::Time};
  }
  for (const YAML::Node& o : list) {
    const std::string v = o.IsScalar() ? o.Scalar() : "";
    Objective obj = Objective::Time;
    if (v == "energy") obj = Objective::Energy;
    else if (v == "cost") obj = Objective::Cost;
    else if (v != "time") root.error_at(o, "objectives", "expected one of time, energy, cost, got \"" + v + "\"");
    for (Objective seen : out)
      if (seen == obj) root.error_at(o, "objectives", "\"" + v + "\" listed twice");
    out.push_back(obj);
  }
  return out;
}

}  // namespace

const char* objective_name(Objective o) {
  switch (o) {
    case Objective::Time: return "time";
    case Objective::Energy: return "energy";
    case Objective::Cost: return "cost";
  }
  return "?";
}

StudySpec parse_study(const ConfigDoc& doc) {
  ConfigMap root(doc, doc.root());
  StudySpec s;
  s.source_file = doc.path();
  s.name = root.text("name");
  if (root.has("workload") == root.has("workloads")) {
    root.error("workloads", "expected exactly one of workload (a file) or workloads (a list of files)");
    root.mark_used("workload");
    root.mark_used("workloads");
  } else if (root.has("workload")) {
    const std::string path = resolve_relative(doc.path(), root.text("workload"));
    if (readable_file(path)) s.workloads.push_back(path);
    else root.error("workload", "cannot open " + path + " (does it exist?)");
  } else {
    s.workloads = parse_files(root, "workloads");
  }
  s.hardware = parse_files(root, "hardware");
  // A grid with errors is left empty, so that no check below reports a consequence of them.
  size_t errors = root.error_count();
  s.batches = parse_grid(root, "batches", kBatch);
  if (root.error_count() != errors) s.batches.clear();
  errors = root.error_count();
  s.learners = parse_grid(root, "learners", kLearners);
  if (root.error_count() != errors) s.learners.clear();
  s.knee_threshold = root.number_or("knee_threshold", 0.0, 1.0, 0.1);
  s.weak_per_learner_batch = root.integer_or("weak_per_learner_batch", 1, pow2(20), 32);
  s.objectives = parse_objectives(root);
  if (root.has("constraints")) {
    ConfigMap c = root.map("constraints");
    s.max_chips = c.integer_or("max_chips", 1, kLearners, 0);
    s.max_cost_usd = c.quantity_or("max_cost", Dim::Dollars, 0.01, 1e15, 0.0);
    c.check_unknown();
  }
  s.fidelity = root.text_or("fidelity", "analytic");
  if (s.fidelity != "analytic" && s.fidelity != "systemc")
    root.error("fidelity", "expected analytic or systemc, got \"" + s.fidelity + "\"");
  s.verify_top = root.integer_or("verify_top", 0, pow2(20), 0);
  if (root.has("layout")) {
    s.has_layout = true;
    s.layout = parse_layout_node(root, "layout");
    if (s.verify_top > 0) root.error("verify_top", "verify_top re-simulates plain data parallelism; with layout: use fidelity");
  }
  if (s.verify_top > 0 && s.fidelity != "analytic")
    root.error("verify_top", "verify_top re-simulates analytic results in SystemC: needs fidelity analytic");
  // The sweep is validated against the base files that parse; the others' errors are reported
  // with the study's, so that one run shows every problem.
  std::vector<std::string> good_hw = s.hardware, good_wl = s.workloads;
  int64_t largest = check_base_files(root, good_hw, good_wl);
  std::vector<SweepCheck> checks;
  s.sweep = parse_sweep(root, checks);
  largest = std::max(largest, swept_max_learners(s.sweep));
  if (good_hw.size() == s.hardware.size()) check_learners(root, s, largest);
  const size_t errors_before = root.error_count();
  check_design_count(root, s);
  if (root.error_count() == errors_before) run_sweep_checks(root, checks, good_hw, good_wl);
  root.finish();
  return s;
}

}  // namespace kp
