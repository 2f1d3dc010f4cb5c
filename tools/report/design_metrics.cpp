#include "tools/report/design_metrics.h"

#include <cmath>

#include "tools/report/report_select.h"

namespace kp {
namespace {

double training_samples(const TimePoint& p) { return p.steps * static_cast<double>(p.batch); }

}  // namespace

double samples_per_joule(const TimePoint& p) {
  return p.energy_j > 0 && std::isfinite(p.energy_j) ? training_samples(p) / p.energy_j : 0.0;
}

double samples_per_usd(const TimePoint& p) {
  return p.cost_usd > 0 && std::isfinite(p.cost_usd) ? training_samples(p) / p.cost_usd : 0.0;
}

std::vector<bool> pareto_time_cost_energy(const StudyResult& r) {
  std::vector<bool> flags(r.systems.size(), false);
  for (size_t i = 0; i < r.systems.size(); ++i) {
    const SystemResult& a = r.systems[i];
    if (!a.feasible) continue;
    const TimePoint& pa = reported_point(a);
    bool dominated = false;
    for (size_t j = 0; j < r.systems.size() && !dominated; ++j) {
      const SystemResult& b = r.systems[j];
      if (j == i || !b.feasible || b.workload != a.workload) continue;
      const TimePoint& pb = reported_point(b);
      const bool no_worse = pb.t_total_s <= pa.t_total_s && pb.cost_usd <= pa.cost_usd && pb.energy_j <= pa.energy_j;
      const bool better = pb.t_total_s < pa.t_total_s || pb.cost_usd < pa.cost_usd || pb.energy_j < pa.energy_j;
      dominated = no_worse && better;
    }
    flags[i] = !dominated;
  }
  return flags;
}

}  // namespace kp
