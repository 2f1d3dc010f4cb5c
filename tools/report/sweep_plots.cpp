#include "tools/report/sweep_plots.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include "tools/report/plot_util.h"
#include "tools/report/report_select.h"
#include "tools/report/report_writer.h"
#include "tools/report/svg_plot.h"

namespace kp {
namespace {

const double kNaN = std::nan("");

// A system's position in r.systems (what the per-system vectors here are indexed by).
size_t at(const StudyResult& r, const SystemResult& s) { return static_cast<size_t>(&s - r.systems.data()); }

struct Objective4 {
  const char* name;
  const char* axis;  // with its unit
  double (*of)(const SystemResult&);
};

const Objective4 kObjectives[] = {
    {"total time", "total time to target (s)", [](const SystemResult& s) { return s.chosen.t_total_s; }},
    {"energy", "energy per training run (J)", [](const SystemResult& s) { return s.chosen.energy_j; }},
    {"cost", "cost per training run (USD)", [](const SystemResult& s) { return s.chosen.cost_usd; }},
    {"die area", "die area (mm2)", [](const SystemResult& s) { return s.area_m2 * 1e6; }},
};

std::string short_key(const std::string& key) { return key.substr(key.find_last_of('.') + 1); }

std::string axis_label(const SweptAxis& a) { return a.key + (a.unit.empty() ? "" : " (" + a.unit + ")"); }

// "128" -> (128, ""), "32 MiB" -> (32, "MiB"); false for a name.
bool split_value(const std::string& text, double& v, std::string& unit) {
  char* end = nullptr;
  v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !std::isfinite(v)) return false;
  unit = end;
  unit.erase(0, unit.find_first_not_of(' '));
  return true;
}

// A log axis when the positive values span a decade, else linear; padded so end markers show.
void value_axis(SvgPlot& p, bool x, const std::string& label, const std::vector<double>& vs) {
  Range r;
  bool positive = true;
  for (double v : vs) {
    r.add(v);
    positive = positive && v > 0;
  }
  if (r.empty()) r = Range{1, 10};
  const bool log = positive && r.hi >= 10 * r.lo;
  const double pad = 0.08 * (r.hi - r.lo) + (r.hi == r.lo ? 0.1 * std::fabs(r.hi) + 1e-12 : 0);
  const Range pr = log ? r.padded_log() : Range{r.lo - pad, r.hi + pad};
  if (x) p.x_axis(label, pr.lo, pr.hi, log); else p.y_axis(label, pr.lo, pr.hi, log);
}

// The best system (lowest rank) per value of `a` for each (hardware file, workload) series.
std::map<std::pair<std::string, size_t>, std::map<double, size_t>> best_per_value(const StudyResult& r,
                                                                                   const SweptAxis& a) {
  std::map<std::pair<std::string, size_t>, std::map<double, size_t>> out;
  for (const SystemResult& s : r.systems) {
    const double v = a.values[at(r, s)];
    if (!s.feasible || s.rank <= 0 || std::isnan(v)) continue;
    auto& series = out[{s.file, s.workload}];
    const auto it = series.find(v);
    if (it == series.end() || r.systems[it->second].rank > s.rank) series[v] = at(r, s);
  }
  return out;
}

// One colour per (hardware file, workload), the same in every plot: by first appearance.
std::map<std::pair<std::string, size_t>, size_t> series_colours(const StudyResult& r) {
  std::map<std::pair<std::string, size_t>, size_t> out;
  for (const SystemResult& s : r.systems) out.insert({{s.file, s.workload}, out.size()});
  return out;
}

std::vector<double> edges_of(const std::vector<double>& v, bool log) {
  std::vector<double> e;
  for (size_t i = 0; i + 1 < v.size(); ++i) e.push_back(log ? std::sqrt(v[i] * v[i + 1]) : (v[i] + v[i + 1]) / 2);
  if (v.size() == 1) return log ? std::vector<double>{v[0] / 1.5, v[0] * 1.5} : std::vector<double>{v[0] - 0.5, v[0] + 0.5};
  e.insert(e.begin(), log ? e.front() * v[0] / v[1] : e.front() - (v[1] - v[0]));
  e.push_back(log ? e.back() * v.back() / v[v.size() - 2] : e.back() + (v.back() - v[v.size() - 2]));
  return e;
}

// Where the best design of each workload sits on the axis, against the largest feasible value:
// an optimum inside the range is a trade-off the plots below show.
std::string optimum_text(const StudyResult& r, const SweptAxis& a) {
  std::string out;
  for (size_t w = 0; w < r.workloads.size(); ++w) {
    double best = kNaN, largest = kNaN;
    for (const SystemResult& s : r.systems) {
      const double v = a.values[at(r, s)];
      if (s.workload != w || !s.feasible || std::isnan(v)) continue;
      if (s.rank == 1) best = v;
      if (std::isnan(largest) || v > largest) largest = v;
    }
    if (std::isnan(best)) continue;
    const std::string unit = a.unit.empty() ? "" : " " + a.unit;
    out += (r.workloads.size() > 1 ? r.workloads[w].name + ": best" : std::string("Best")) + " by " +
           objective_name(r.spec.objectives.front()) + " at " + short_key(a.key) + " = " + tick_text(best) + unit +
           (best < largest ? ", below the largest feasible value (" + tick_text(largest) + unit + "). "
                           : ", the largest feasible value. ");
  }
  return out;
}

}  // namespace

std::string sweep_optimum_text(const StudyResult& r) {
  std::string out;
  for (const SweptAxis& a : swept_axes(r))
    if (a.numeric) out += optimum_text(r, a);
  return out;
}

std::vector<SweptAxis> swept_axes(const StudyResult& r) {
  std::vector<SweptAxis> axes;
  for (const SystemResult& s : r.systems)
    for (const Override& o : s.overrides)
      if (std::none_of(axes.begin(), axes.end(), [&](const SweptAxis& a) { return a.key == o.key; }))
        axes.push_back({o.key, "", std::vector<double>(r.systems.size(), kNaN), true});
  for (SweptAxis& a : axes) {
    bool first = true;
    for (const SystemResult& s : r.systems)
      for (const Override& o : s.overrides) {
        if (o.key != a.key) continue;
        double v = 0;
        std::string unit;
        if (!split_value(o.value, v, unit) || (!first && unit != a.unit)) a.numeric = false;
        if (first) a.unit = unit;
        first = false;
        a.values[at(r, s)] = v;
      }
  }
  return axes;
}

std::vector<std::string> plot_objectives_against(const StudyResult& r, const SweptAxis& axis) {
  const auto series = best_per_value(r, axis);
  bool area = false;
  for (const SystemResult& s : r.systems) area = area || s.area_m2 > 0;
  std::vector<std::string> out;
  for (size_t o = 0; o < (area ? 4u : 3u); ++o) {
    const Objective4& obj = kObjectives[o];
    // Four plots (with area) or three fit side by side in the report's 1320 px column.
    SvgPlot p(obj.name + std::string(" vs ") + short_key(axis.key), area ? 312 : 420, 270);
    std::vector<double> xs, ys;
    for (const auto& [id, points] : series)
      for (const auto& [v, i] : points) {
        xs.push_back(v);
        ys.push_back(obj.of(r.systems[i]));
      }
    value_axis(p, true, short_key(axis.key) + (axis.unit.empty() ? "" : " (" + axis.unit + ")"), xs);  // h3: the key
    value_axis(p, false, obj.axis, ys);
    const auto colours = series_colours(r);
    for (const auto& [id, points] : series) {
      const size_t k = colours.at(id);
      std::vector<XY> line;
      XY best{kNaN, kNaN};
      for (const auto& [v, i] : points) {
        line.push_back({v, obj.of(r.systems[i])});
        if (std::isnan(best.y) || line.back().y < best.y) best = line.back();
      }
      p.polyline(line, series_color(k), "");
      p.markers(line, series_color(k), "");
      if (series.size() <= 2 && !std::isnan(best.y))
        p.annotate(best, series_color(k), "lowest at " + tick_text(best.x) + (axis.unit.empty() ? "" : " " + axis.unit));
    }
    out.push_back(p.str());
  }
  return out;
}

std::string plot_sweep_heatmap(const StudyResult& r, size_t workload, const SweptAxis& a, const SweptAxis& b) {
  const Objective first = r.spec.objectives.front();
  const Objective4& obj = kObjectives[first == Objective::Time ? 0 : first == Objective::Energy ? 1 : 2];
  std::map<std::pair<double, double>, size_t> best;
  std::vector<double> av, bv;
  for (const SystemResult& s : r.systems) {
    const double x = a.values[at(r, s)], y = b.values[at(r, s)];
    if (s.workload != workload || !s.feasible || s.rank <= 0 || std::isnan(x) || std::isnan(y)) continue;
    const auto it = best.find({x, y});
    if (it == best.end() || r.systems[it->second].rank > s.rank) best[{x, y}] = at(r, s);
    av.push_back(x);
    bv.push_back(y);
  }
  for (std::vector<double>* v : {&av, &bv}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  const bool xlog = !av.empty() && av.front() > 0 && av.back() >= 8 * av.front();
  const bool ylog = !bv.empty() && bv.front() > 0 && bv.back() >= 8 * bv.front();
  const std::vector<double> xe = av.empty() ? std::vector<double>{1, 10} : edges_of(av, xlog);
  const std::vector<double> ye = bv.empty() ? std::vector<double>{1, 10} : edges_of(bv, ylog);
  SvgPlot p(r.workloads[workload].name + ": " + obj.name + " of the best design per (" + short_key(a.key) + ", " +
                short_key(b.key) + ")", 636, 340);
  p.legend_outside();
  p.x_axis(axis_label(a), xe.front(), xe.back(), xlog);
  p.x_ticks(av);
  p.y_axis(axis_label(b), ye.front(), ye.back(), ylog);
  p.y_ticks(bv);
  Range z;
  for (const auto& [xy, i] : best) z.add(obj.of(r.systems[i]));
  const double llo = z.empty() ? 0 : std::log10(z.lo), lhi = z.empty() ? 1 : std::log10(z.hi);
  size_t best_index = 0;
  bool any = false;
  for (const auto& [xy, i] : best) {
    const double v = obj.of(r.systems[i]);
    if (!(v > 0)) continue;
    const size_t xi = static_cast<size_t>(std::lower_bound(av.begin(), av.end(), xy.first) - av.begin());
    const size_t yi = static_cast<size_t>(std::lower_bound(bv.begin(), bv.end(), xy.second) - bv.begin());
    const double f = lhi > llo ? (std::log10(v) - llo) / (lhi - llo) : 0;
    p.rect(xe[xi], xe[xi + 1], ye[yi], ye[yi + 1], viridis(f), design_label(r.systems[i]) + ": " + fmt("%.4g", v));
    if (!any || v < obj.of(r.systems[best_index])) best_index = i, any = true;
  }
  if (any)
    p.annotate({a.values[best_index], b.values[best_index]}, "#fff", "best: " + fmt("%.4g", obj.of(r.systems[best_index])),
               0, "#000");
  std::vector<std::string> colours;
  for (int k = 0; k < 48; ++k) colours.push_back(viridis((k + 0.5) / 48));
  std::vector<double> ticks;
  for (int e = static_cast<int>(std::floor(llo)); e <= static_cast<int>(std::ceil(lhi)); ++e)
    for (double m : lhi - llo < 3 ? std::vector<double>{1, 2, 5} : std::vector<double>{1}) ticks.push_back(m * std::pow(10.0, e));
  p.colour_bar(colours, z.empty() ? 1 : z.lo, z.empty() ? 10 : z.hi, true, ticks, std::string(obj.axis) + ", log");
  return p.str();
}

std::string sweep_section(const StudyResult& r) {
  const std::vector<SweptAxis> axes = swept_axes(r);
  if (axes.empty()) return "";
  std::string h = "<section id=\"sweep\"><h2>Objectives against the swept keys</h2>\n<p class=\"muted\">For each value "
                  "of a swept key: the best design with that value (best by " +
                  html_escape(objective_name(r.spec.objectives.front())) +
                  ", the study's first objective), so the other swept keys sit at their best for it; every design at "
                  "its own best batch and chip count. Hover a point for its numbers.</p>\n<div class=\"key\">";
  for (const auto& [id, k] : series_colours(r)) {
    std::string hw = id.first;
    for (const SystemResult& s : r.systems)
      if (s.file == id.first && !s.hardware_name.empty()) hw = s.hardware_name;
    h += "<span style=\"background:" + std::string(series_color(k)) + "\"></span>" + html_escape(hw) + " on " +
         html_escape(r.workloads.at(id.second).name);
  }
  h += "</div>\n";
  std::string names;
  for (const SweptAxis& a : axes) {
    if (!a.numeric) {
      names += std::string(names.empty() ? "" : ", ") + a.key;
      continue;
    }
    h += "<h3>" + html_escape(a.key) + "</h3><p class=\"muted\">" + html_escape(optimum_text(r, a)) + "</p><div class=\"plots\">";
    for (const std::string& svg : plot_objectives_against(r, a)) h += svg;
    h += "</div>\n";
  }
  if (!names.empty()) h += "<p class=\"muted\">Not plotted (values are names, not numbers): " + html_escape(names) + ".</p>\n";
  // The first two numeric keys that vary independently (zipped keys move together: a diagonal).
  for (size_t i = 0; i < axes.size(); ++i)
    for (size_t j = i + 1; j < axes.size(); ++j) {
      if (!axes[i].numeric || !axes[j].numeric) continue;
      std::map<double, int> xs, ys;
      std::map<std::pair<double, double>, int> pairs;
      for (const SystemResult& s : r.systems) {
        const double x = axes[i].values[at(r, s)], y = axes[j].values[at(r, s)];
        if (std::isnan(x) || std::isnan(y)) continue;
        xs[x] = ys[y] = pairs[{x, y}] = 1;
      }
      if (pairs.size() <= std::max(xs.size(), ys.size())) continue;
      h += "<h3>" + html_escape(axes[i].key) + " against " + html_escape(axes[j].key) + "</h3><div class=\"plots\">";
      for (size_t w = 0; w < r.workloads.size(); ++w) h += plot_sweep_heatmap(r, w, axes[i], axes[j]);
      return h + "</div>\n<p class=\"muted\">Colour: the first objective of the best design per cell (log scale, "
                 "dark = low); ringed: the best cell. Blank: no feasible design.</p></section>\n";
    }
  return h + "</section>\n";
}

}  // namespace kp
