#include "tools/study/study_spec.h"

#include "core/config_map.h"
#include "models/time_model/time_model.h"

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

}  // namespace

StudySpec parse_study(const ConfigDoc& doc) {
  ConfigMap root(doc, doc.root());
  StudySpec s;
  s.source_file = doc.path();
  s.name = root.text("name");
  s.workload = resolve_relative(doc.path(), root.text("workload"));
  const YAML::Node hw = doc.root()["hardware"];
  if (!hw || !hw.IsSequence() || hw.size() == 0) {
    root.error("hardware", "expected a non-empty list of hardware files");
  } else {
    for (const YAML::Node& h : hw) {
      if (!h.IsScalar()) {
        root.error_at(h, "hardware", "expected a file name");
        continue;
      }
      s.hardware.push_back(resolve_relative(doc.path(), h.Scalar()));
    }
  }
  root.mark_used("hardware");
  s.batches = parse_grid(root, "batches");
  s.learners = parse_grid(root, "learners");
  s.knee_threshold = root.number_or("knee_threshold", 0.0, 1.0, 0.1);
  s.weak_per_learner_batch = root.integer_or("weak_per_learner_batch", 1, 32);
  const std::string fidelity = root.text_or("fidelity", "analytic");
  if (fidelity != "analytic") root.error("fidelity", "expected analytic (systemc comes with the SystemC models)");
  root.finish();
  return s;
}

}  // namespace kp
