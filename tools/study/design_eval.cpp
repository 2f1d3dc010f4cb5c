#include "tools/study/design_eval.h"

#include <algorithm>

#include "tools/study/study_select.h"

namespace kp {

std::vector<std::string> assignments(const std::vector<Override>& overrides) {
  std::vector<std::string> out;
  for (const Override& o : overrides) out.push_back(o.assignment());
  return out;
}

DesignEvaluator::DesignEvaluator(const StudySpec& spec) : m_spec(spec), m_count(design_count(spec)) {
  for (const std::string& file : spec.workloads) {
    m_cases.push_back(load_workload_case(file));
    const WorkloadCase& c = m_cases.back();
    m_results.push_back(WorkloadResult{c.workload.name, file, c.law, c.step.params});
  }
}

std::string DesignEvaluator::label(const DesignPointSpec& d, const std::string& hardware_name) const {
  std::string out = hardware_name;
  if (!d.overrides.empty()) {
    out += " [";
    for (size_t i = 0; i < d.overrides.size(); ++i) {
      // The last part of the key is enough unless two swept keys share it.
      const std::string& key = d.overrides[i].key;
      std::string shown = key.substr(key.find_last_of('.') + 1);
      for (size_t j = 0; j < d.overrides.size(); ++j) {
        const std::string& other = d.overrides[j].key;
        if (j != i && other.substr(other.find_last_of('.') + 1) == shown) shown = key;
      }
      out += (i ? "; " : "") + shown + "=" + d.overrides[i].value;
    }
    out += "]";
  }
  if (m_spec.workloads.size() > 1) out += " / " + m_results[d.workload].name;
  return out;
}

Case DesignEvaluator::build(const DesignPointSpec& d) const {
  const std::vector<std::string> sets = assignments(d.overrides);
  Case c;
  c.hw = load_hardware(m_spec.hardware[d.hardware], sets);
  bool workload_swept = false;
  for (const Override& o : d.overrides) workload_swept = workload_swept || o.key.rfind("workload.", 0) == 0;
  const WorkloadCase w = workload_swept ? load_workload_case(m_spec.workloads[d.workload], sets)
                                        : WorkloadCase{};
  const WorkloadCase& src = workload_swept ? w : m_cases[d.workload];
  c.step = src.step;
  c.law = src.law;
  return c;
}

SystemResult DesignEvaluator::evaluate(size_t index) const {
  const DesignPointSpec d = design_point(m_spec, index);
  const Case c = build(d);
  SystemResult r;
  r.index = index;
  r.hardware_name = c.hw.name;
  r.name = label(d, c.hw.name);
  r.file = m_spec.hardware[d.hardware];
  r.workload = d.workload;
  r.overrides = d.overrides;
  r.max_learners = c.hw.interconnect.max_learners;
  r.cost_per_chip_hour_usd = c.hw.cost_per_chip_hour_usd;
  r.fidelity = m_spec.fidelity;
  PredictOptions opt;
  opt.batches = m_spec.batches;
  for (int64_t p : learners_allowed(c.hw, m_spec.learners))
    if (m_spec.max_chips == 0 || p <= m_spec.max_chips) opt.learners.push_back(p);
  opt.knee_threshold = m_spec.knee_threshold;
  opt.weak_per_learner_batch = m_spec.weak_per_learner_batch;
  // No chip count of the study that the system offers, or no batch >= P: infeasible, no points.
  if (opt.learners.empty() || *std::max_element(opt.batches.begin(), opt.batches.end()) <
                                  *std::min_element(opt.learners.begin(), opt.learners.end()))
    return r;
  const auto model = make_update_model(c, m_spec.fidelity);
  r.prediction = predict(*model, c.law, c.hw, opt);
  choose_point(m_spec, r);
  return r;
}

TimePoint DesignEvaluator::evaluate_at(size_t index, int64_t batch, int64_t learners,
                                       const std::string& fidelity) const {
  const Case c = build(design_point(m_spec, index));
  const auto model = make_update_model(c, fidelity);
  return evaluate_point(*model, c.law, c.hw, batch, learners);
}

}  // namespace kp
