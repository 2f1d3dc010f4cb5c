#include "tools/report/design_metrics.h"

#include <array>
#include <cmath>
#include <iterator>
#include <map>

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

// O(n log n), since a study may hold millions of designs: the distinct (time, cost, energy) triples
// in lexicographic order, so that any triple that dominates another comes before it, and a
// staircase of the undominated ones so far (cost ascending, energy strictly descending) that gives
// the least energy at a cost no higher. Identical designs share a triple and its flag.
std::vector<bool> pareto_time_cost_energy(const StudyResult& r) {
  std::vector<bool> flags(r.systems.size(), false);
  using Triple = std::array<double, 3>;
  for (size_t w = 0; w < r.workloads.size(); ++w) {
    std::map<Triple, std::vector<size_t>> by_triple;
    for (size_t i = 0; i < r.systems.size(); ++i) {
      const SystemResult& s = r.systems[i];
      if (s.workload != w || !s.feasible) continue;
      const TimePoint& p = reported_point(s);
      by_triple[{p.t_total_s, p.cost_usd, p.energy_j}].push_back(i);
    }
    std::map<double, double> stairs;  // cost -> least energy at that cost or below
    for (const auto& [t, members] : by_triple) {
      auto at = stairs.upper_bound(t[1]);
      if (at != stairs.begin() && std::prev(at)->second <= t[2]) continue;  // an earlier triple is no worse
      for (size_t i : members) flags[i] = true;
      stairs[t[1]] = t[2];
      for (at = stairs.upper_bound(t[1]); at != stairs.end() && at->second >= t[2];) at = stairs.erase(at);
    }
  }
  return flags;
}

}  // namespace kp
