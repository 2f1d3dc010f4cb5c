#include "tools/study/design_space.h"

#include <cstdlib>

namespace kp {
namespace {

size_t group_size(const SweepGroup& g) {
  if (g.axes.empty()) return 1;
  if (g.zip) return g.axes.front().values.size();
  size_t n = 1;
  for (const SweepAxis& a : g.axes) n *= a.values.size();
  return n;
}

}  // namespace

size_t sweep_combinations(const std::vector<SweepGroup>& sweep) {
  size_t n = 1;
  for (const SweepGroup& g : sweep) n *= group_size(g);
  return n;
}

size_t design_count(const StudySpec& spec) {
  return spec.workloads.size() * spec.hardware.size() * sweep_combinations(spec.sweep);
}

DesignPointSpec design_point(const StudySpec& spec, size_t index) {
  if (index >= design_count(spec)) std::abort();  // an internal bug: callers iterate design_count()
  const size_t combos = sweep_combinations(spec.sweep);
  DesignPointSpec d;
  size_t combo = index % combos;
  d.hardware = (index / combos) % spec.hardware.size();
  d.workload = index / combos / spec.hardware.size();
  // Digits from the last group (fastest) to the first; overrides keep the file's order.
  std::vector<std::vector<Override>> per_group(spec.sweep.size());
  for (size_t gi = spec.sweep.size(); gi-- > 0;) {
    const SweepGroup& g = spec.sweep[gi];
    size_t digit = combo % group_size(g);
    combo /= group_size(g);
    if (g.zip) {
      for (const SweepAxis& a : g.axes) per_group[gi].push_back({a.key, a.values[digit]});
      continue;
    }
    std::vector<Override> axes(g.axes.size());
    for (size_t ai = g.axes.size(); ai-- > 0;) {
      const SweepAxis& a = g.axes[ai];
      axes[ai] = {a.key, a.values[digit % a.values.size()]};
      digit /= a.values.size();
    }
    per_group[gi] = std::move(axes);
  }
  for (auto& g : per_group)
    for (Override& o : g) d.overrides.push_back(std::move(o));
  return d;
}

}  // namespace kp
