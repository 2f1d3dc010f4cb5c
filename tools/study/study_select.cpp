#include "tools/study/study_select.h"

#include <algorithm>
#include <cmath>

namespace kp {
namespace {

// Lexicographic over the objectives; then fewer chips, then the smaller batch.
bool better(const StudySpec& spec, const TimePoint& a, const TimePoint& b) {
  for (Objective o : spec.objectives) {
    const double va = objective_value(a, o), vb = objective_value(b, o);
    if (va != vb) return va < vb;
  }
  if (a.learners != b.learners) return a.learners < b.learners;
  return a.batch < b.batch;
}

bool dominates(const StudySpec& spec, const TimePoint& a, const TimePoint& b) {
  bool strictly = false;
  for (Objective o : spec.objectives) {
    const double va = objective_value(a, o), vb = objective_value(b, o);
    if (va > vb) return false;
    strictly = strictly || va < vb;
  }
  return strictly;
}

}  // namespace

double objective_value(const TimePoint& p, Objective o) {
  switch (o) {
    case Objective::Time: return p.t_total_s;
    case Objective::Energy: return p.energy_j;
    case Objective::Cost: return p.cost_usd;
  }
  return p.t_total_s;
}

bool point_feasible(const StudySpec& spec, const TimePoint& p) {
  if (!std::isfinite(p.t_total_s) || !p.fits) return false;
  if (spec.max_chips > 0 && p.learners > spec.max_chips) return false;
  if (spec.max_cost_usd > 0 && p.cost_usd > spec.max_cost_usd) return false;
  return true;
}

void choose_point(const StudySpec& spec, SystemResult& design) {
  design.feasible = false;
  design.chosen = TimePoint();
  for (const TimePoint& p : design.prediction.points) {
    if (!point_feasible(spec, p)) continue;
    if (!design.feasible || better(spec, p, design.chosen)) design.chosen = p;
    design.feasible = true;
  }
}

void rank_designs(StudyResult& result) {
  const StudySpec& spec = result.spec;
  for (SystemResult& s : result.systems) {
    s.rank = 0;
    s.pareto = false;
  }
  for (size_t w = 0; w < result.workloads.size(); ++w) {
    std::vector<SystemResult*> group;
    for (SystemResult& s : result.systems)
      if (s.workload == w && s.feasible) group.push_back(&s);
    std::stable_sort(group.begin(), group.end(), [&](const SystemResult* a, const SystemResult* b) {
      const double va = objective_value(a->chosen, spec.objectives.front());
      const double vb = objective_value(b->chosen, spec.objectives.front());
      return va != vb ? va < vb : a->index < b->index;
    });
    for (size_t i = 0; i < group.size(); ++i) {
      group[i]->rank = static_cast<int>(i + 1);
      group[i]->pareto = std::none_of(group.begin(), group.end(), [&](const SystemResult* other) {
        return dominates(spec, other->chosen, group[i]->chosen);
      });
    }
  }
}

}  // namespace kp
