#include "tools/report/plot_util.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/number_format.h"

namespace kp {

std::string fmt(const char* format, double v) { return format_double(v, format); }

void Range::add(double v) {
  if (!std::isfinite(v) || v <= 0) return;
  lo = std::min(lo, v);
  hi = std::max(hi, v);
}

Range Range::padded_log(double decades) const {
  if (empty()) return {1, 10};
  const double f = std::pow(10.0, decades);
  return {lo / f, hi * f};
}

std::string chips_text(int64_t n) { return std::to_string(n) + (n == 1 ? " chip" : " chips"); }

std::vector<int64_t> sorted_unique(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

std::vector<double> log_edges(const std::vector<int64_t>& grid_in) {
  std::vector<double> g(grid_in.begin(), grid_in.end()), e;
  if (g.empty()) return e;
  if (g.size() == 1) return {g[0] / std::sqrt(2.0), g[0] * std::sqrt(2.0)};
  e.push_back(g[0] * std::sqrt(g[0] / g[1]));
  for (size_t i = 0; i + 1 < g.size(); ++i) e.push_back(std::sqrt(g[i] * g[i + 1]));
  e.push_back(g.back() * std::sqrt(g.back() / g[g.size() - 2]));
  return e;
}

std::vector<double> pow2_ticks(double lo, double hi, size_t max_ticks) {
  std::vector<double> all;
  for (double v = 1; v <= hi * (1 + 1e-9); v *= 2)
    if (v >= lo * (1 - 1e-9)) all.push_back(v);
  if (all.size() < 3 || max_ticks == 0) return {};
  size_t step = 1;
  while ((all.size() + step - 1) / step > max_ticks) step *= 2;
  std::vector<double> out;
  // Keep the largest value (the end of the grid a reader looks for) and step down from it.
  for (size_t i = all.size(); i-- > 0;)
    if ((all.size() - 1 - i) % step == 0) out.insert(out.begin(), all[i]);
  return out;
}

std::string viridis(double t) {
  static const double stops[5][3] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
  t = std::clamp(t, 0.0, 1.0) * 4;
  const int i = std::min(3, static_cast<int>(t));
  const double f = t - i;
  char buf[16];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", static_cast<int>(stops[i][0] + f * (stops[i + 1][0] - stops[i][0])),
                static_cast<int>(stops[i][1] + f * (stops[i + 1][1] - stops[i][1])),
                static_cast<int>(stops[i][2] + f * (stops[i + 1][2] - stops[i][2])));
  return buf;
}

const char* series_color(size_t i) {
  static const char* colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
  return colors[i % (sizeof colors / sizeof colors[0])];
}

std::string middle_cut(const std::string& text, size_t fits) {
  if (text.size() <= fits) return text;
  return text.substr(0, fits / 2 - 1) + "\u2026" + text.substr(text.size() - (fits - fits / 2));
}

}  // namespace kp
