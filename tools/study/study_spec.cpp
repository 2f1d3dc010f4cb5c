#include "tools/study/study_spec.h"

#include "core/config_map.h"
#include "models/time_model/time_model.h"
#include "tools/study/study_sweep.h"

namespace kp {
namespace {

std::vector<int64_t> parse_grid(ConfigMap& root, const std::string& key) {
  if (root.has_map(key)) {
    ConfigMap g = root.map(key);
    const int64_t from = g.integer("from", 1);
    const int64_t to = g.integer("to", 1);
    if (to < from) g.error("to", "expected to >= from");
    g.check_unknown();
    return powers_of_two(from, to);
  }
  return root.integer_list(key, 1);
}

// A non-empty list of file names under `key`, resolved against the study file's folder.
std::vector<std::string> parse_files(ConfigMap& root, const std::string& key) {
  std::vector<std::string> out;
  root.mark_used(key);
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
    out.push_back(resolve_relative(root.doc().path(), h.Scalar()));
  }
  return out;
}

std::vector<Objective> parse_objectives(ConfigMap& root) {
  std::vector<Objective> out;
  root.mark_used("objectives");
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
    s.workloads.push_back(resolve_relative(doc.path(), root.text("workload")));
  } else {
    s.workloads = parse_files(root, "workloads");
  }
  s.hardware = parse_files(root, "hardware");
  s.batches = parse_grid(root, "batches");
  s.learners = parse_grid(root, "learners");
  s.knee_threshold = root.number_or("knee_threshold", 0.0, 1.0, 0.1);
  s.weak_per_learner_batch = root.integer_or("weak_per_learner_batch", 1, 32);
  s.objectives = parse_objectives(root);
  if (root.has("constraints")) {
    ConfigMap c = root.map("constraints");
    s.max_chips = c.integer_or("max_chips", 1, 0);
    s.max_cost_usd = c.quantity_or("max_cost", Dim::Dollars, 0.0);
    c.check_unknown();
  }
  s.fidelity = root.text_or("fidelity", "analytic");
  if (s.fidelity != "analytic" && s.fidelity != "systemc")
    root.error("fidelity", "expected analytic or systemc, got \"" + s.fidelity + "\"");
  s.verify_top = root.integer_or("verify_top", 0, 0);
  if (s.verify_top > 0 && s.fidelity != "analytic")
    root.error("verify_top", "verify_top re-simulates analytic results in SystemC: needs fidelity analytic");
  // The sweep is validated against the base files, so only when they were named correctly.
  if (root.ok()) s.sweep = parse_sweep(root, s.hardware, s.workloads);
  else root.mark_used("sweep");
  root.finish();
  return s;
}

}  // namespace kp
