#include "tools/study/design_eval.h"

#include <algorithm>
#include <stdexcept>

#include "models/time_model/chip_area.h"
#include "models/time_model/chip_cost.h"
#include "sim/analytic/update_analytic.h"
#include "tools/study/pooled_systemc.h"
#include "tools/study/study_select.h"

namespace kp {

std::vector<std::string> assignments(const std::vector<Override>& overrides) {
  std::vector<std::string> out;
  for (const Override& o : overrides) out.push_back(o.assignment());
  return out;
}

DesignEvaluator::DesignEvaluator(const StudySpec& spec, int systemc_workers)
    : m_spec(spec), m_count(design_count(spec)), m_sc_workers(std::max(1, systemc_workers)) {
  // Loaded once; each design applies its overrides to a deep copy (ConfigDoc::deep_copy).
  for (const std::string& file : spec.hardware) m_hardware.push_back(ConfigDoc::load(file).deep_copy());
  for (const std::string& file : spec.workloads) {
    m_cases.push_back(load_workload_case(file));
    m_profiles.push_back(std::make_unique<StepProfileCache>());
    const WorkloadCase& c = m_cases.back();
    m_results.push_back(WorkloadResult{c.workload.name, file, c.law, c.step.params, {}});
    // A curve from a file (or a cached measurement) shows its points and bootstrap band in the report.
    if (c.workload.step_curve.source != StepCurveSource::Law && !spec.batches.empty())
      m_results.back().band = step_band_from_csv(
          c.workload.step_curve.path, static_cast<double>(*std::min_element(spec.batches.begin(), spec.batches.end())),
          static_cast<double>(*std::max_element(spec.batches.begin(), spec.batches.end())));
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

bool DesignEvaluator::workload_swept(const DesignPointSpec& d) {
  for (const Override& o : d.overrides)
    if (o.key.rfind("workload.", 0) == 0) return true;
  return false;
}

Case DesignEvaluator::build(const DesignPointSpec& d) const {
  const std::vector<std::string> sets = assignments(d.overrides);
  Case c;
  c.hw = load_hardware(m_hardware[d.hardware], sets);
  const bool swept = workload_swept(d);
  const WorkloadCase w = swept ? load_workload_case(m_spec.workloads[d.workload], sets) : WorkloadCase{};
  const WorkloadCase& src = swept ? w : m_cases[d.workload];
  c.step = src.step;
  c.law = src.law;
  // A chip without the products' type cannot run the point: infeasible, as a network that does not fit.
  c.precision_problem = precision_problem(src.workload.precision, c.hw);
  if (c.precision_problem.empty()) c.precision = resolve_precision(src.workload.precision, c.hw);
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
  r.power_modelled = c.hw.power.modelled;
  r.tdp_w = c.hw.power.tdp_w;
  if (c.hw.area.modelled) r.area_m2 = chip_area(c.hw).total_m2;
  // A die over the reticle cannot be built: infeasible, like a network that does not fit memory.
  if (!die_problem(c.hw).empty()) return r;
  r.cost_per_chip_hour_usd = chip_hour_usd(c.hw);
  if (c.hw.cost.model == CostModel::Build) r.chip_price_usd = chip_price(c.hw).total_usd;
  r.fidelity = m_spec.fidelity;
  PredictOptions opt;
  opt.batches = m_spec.batches;
  for (int64_t p : learners_allowed(c.hw, m_spec.learners))
    if (m_spec.max_chips == 0 || p <= m_spec.max_chips) opt.learners.push_back(p);
  opt.knee_threshold = m_spec.knee_threshold;
  opt.weak_per_learner_batch = m_spec.weak_per_learner_batch;
  // No chip count of the study that the system offers, no batch >= P, or a network that does not
  // fit the chip's memory: infeasible, no points.
  const auto does_not_fit = [&] {  // the step's need is computed once per workload and widths
    const MemoryNeed need = workload_swept(d) ? plain_memory_need(c.step, c.precision.bytes)
                                              : m_profiles[d.workload]->memory_need(c.step, c.precision.bytes);
    return !memory_problem(c.hw, need).empty();
  };
  if (opt.learners.empty() || !c.precision_problem.empty() || (!m_spec.has_layout && does_not_fit()) ||
      *std::max_element(opt.batches.begin(), opt.batches.end()) < *std::min_element(opt.learners.begin(), opt.learners.end()))
    return r;
  if (m_spec.has_layout) {
    try {
      r.prediction = predict(*make_update_model(c, m_spec.fidelity, &m_spec.layout), c.law, c.hw, opt);
    } catch (const std::invalid_argument&) {
      return r;  // no point of the grid fits memory under any layout tried: infeasible
    }
  } else if (m_spec.fidelity == "systemc") {
    // Every distinct per-learner batch of the grid (and of the weak-scaling points) in one pool.
    PooledSystemcUpdate model(c.hw, c.step, c.precision);
    std::vector<ScRequest> requests;
    for (int64_t p : opt.learners) {
      for (int64_t m : opt.batches)
        if (m >= p) requests.push_back({&model, (m + p - 1) / p});
      requests.push_back({&model, opt.weak_per_learner_batch});
    }
    run_systemc_requests(requests, m_sc_workers);
    r.prediction = predict(model, c.law, c.hw, opt);
  } else if (m_spec.fidelity == "analytic" && !workload_swept(d)) {
    // Designs that share every input of a step profile share the profile (step_profile_cache.h).
    const AnalyticUpdate model(c.hw, c.step, c.precision, m_profiles[d.workload].get());
    r.prediction = predict(model, c.law, c.hw, opt);
  } else {
    r.prediction = predict(*make_update_model(c, m_spec.fidelity), c.law, c.hw, opt);
  }
  choose_point(m_spec, r);
  return r;
}

std::vector<TimePoint> DesignEvaluator::evaluate_systemc(const std::vector<PointRef>& points) const {
  std::vector<Case> cases;
  std::vector<std::unique_ptr<PooledSystemcUpdate>> models;
  std::vector<ScRequest> requests;
  for (const PointRef& p : points) {
    cases.push_back(build(design_point(m_spec, p.index)));
    const Case& c = cases.back();
    models.push_back(std::make_unique<PooledSystemcUpdate>(c.hw, c.step, c.precision));
    requests.push_back({models.back().get(), (p.batch + p.learners - 1) / p.learners});
  }
  run_systemc_requests(requests, m_sc_workers);
  std::vector<TimePoint> out;
  for (size_t i = 0; i < points.size(); ++i)
    out.push_back(evaluate_point(*models[i], cases[i].law, cases[i].hw, points[i].batch, points[i].learners));
  return out;
}

}  // namespace kp
