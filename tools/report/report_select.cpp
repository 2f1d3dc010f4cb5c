#include "tools/report/report_select.h"

#include <algorithm>

namespace kp {

const TimePoint& reported_point(const SystemResult& s) {
  return s.feasible ? s.chosen : s.prediction.overall_best;
}

std::vector<size_t> ranked_designs(const StudyResult& r) {
  std::vector<size_t> order(r.systems.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const SystemResult &x = r.systems[a], &y = r.systems[b];
    if (x.workload != y.workload) return x.workload < y.workload;
    const int rx = x.rank > 0 ? x.rank : 1 << 30, ry = y.rank > 0 ? y.rank : 1 << 30;
    if (rx != ry) return rx < ry;
    return x.index < y.index;
  });
  return order;
}

std::vector<size_t> featured_designs(const StudyResult& r, size_t max_count) {
  std::vector<size_t> out;
  std::vector<std::pair<size_t, std::string>> seen;
  for (size_t i : ranked_designs(r)) {
    const std::pair<size_t, std::string> key{r.systems[i].workload, r.systems[i].file};
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    if (out.size() < max_count) out.push_back(i);
  }
  for (size_t i : ranked_designs(r)) {
    if (out.size() >= std::min<size_t>(3, max_count)) break;
    if (std::find(out.begin(), out.end(), i) == out.end()) out.push_back(i);
  }
  std::vector<size_t> ranked_out;
  for (size_t i : ranked_designs(r))
    if (std::find(out.begin(), out.end(), i) != out.end()) ranked_out.push_back(i);
  return ranked_out;
}

std::vector<size_t> designs_of_workload(const StudyResult& r, size_t w) {
  std::vector<size_t> out;
  for (size_t i = 0; i < r.systems.size(); ++i)
    if (r.systems[i].workload == w) out.push_back(i);
  return out;
}

std::string design_label(const SystemResult& s) {
  if (s.overrides.empty()) return s.name;
  std::string out = (s.hardware_name.empty() ? s.file : s.hardware_name) + " (";
  for (size_t i = 0; i < s.overrides.size(); ++i) out += (i ? ", " : "") + s.overrides[i].value;
  return out + ")";
}

std::string overrides_text(const SystemResult& s) {
  std::string out;
  for (const Override& o : s.overrides) {
    const std::string key = o.key.substr(o.key.find_last_of('.') + 1);
    out += (out.empty() ? "" : "; ") + key + "=" + o.value;
  }
  return out;
}

}  // namespace kp
