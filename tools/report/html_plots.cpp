#include "tools/report/html_plots.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "tools/report/svg_plot.h"

namespace kp {
namespace {

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

struct Range {
  double lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity();
  void add(double v) {
    if (!std::isfinite(v) || v <= 0) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  bool empty() const { return !(hi >= lo); }
  // Pads a log range by a fraction of a decade so markers at the ends stay inside the frame.
  Range padded_log(double decades = 0.08) const {
    if (empty()) return {1, 10};
    const double f = std::pow(10.0, decades);
    return {lo / f, hi * f};
  }
};

// Viridis at five stops, interpolated: perceptually ordered and readable in grey.
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

// Cell edges of a sorted grid on a log axis: geometric midpoints, the ends mirrored.
std::vector<double> log_edges(const std::vector<int64_t>& grid_in) {
  std::vector<double> g(grid_in.begin(), grid_in.end()), e;
  if (g.empty()) return e;
  if (g.size() == 1) return {g[0] / std::sqrt(2.0), g[0] * std::sqrt(2.0)};
  e.push_back(g[0] * std::sqrt(g[0] / g[1]));
  for (size_t i = 0; i + 1 < g.size(); ++i) e.push_back(std::sqrt(g[i] * g[i + 1]));
  e.push_back(g.back() * std::sqrt(g.back() / g[g.size() - 2]));
  return e;
}

std::vector<int64_t> sorted_unique(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

}  // namespace

const char* series_color(size_t i) {
  static const char* colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
  return colors[i % (sizeof colors / sizeof colors[0])];
}

std::string plot_step_curve(const StudyResult& r) {
  const std::vector<int64_t> grid = sorted_unique(r.spec.batches);
  Range x, y;
  for (int64_t m : grid) {
    x.add(static_cast<double>(m));
    y.add(r.workloads.front().law.steps(static_cast<double>(m)));
  }
  y.add(r.workloads.front().law.n_inf);
  const Range xp = x.padded_log(), yp = y.padded_log();
  SvgPlot p("Step curve N(M) = " + fmt("%.4g", r.workloads.front().law.n_inf) + " + " + fmt("%.4g", r.workloads.front().law.alpha) + " / M");
  p.x_axis("global batch M (samples)", xp.lo, xp.hi, true);
  p.y_axis("optimizer steps to target (steps)", yp.lo, yp.hi, true);
  std::vector<XY> curve, at_grid;
  for (int i = 0; i <= 96 && !x.empty(); ++i) {
    const double m = x.lo * std::pow(x.hi / x.lo, i / 96.0);
    curve.push_back({m, r.workloads.front().law.steps(m)});
  }
  for (int64_t m : grid) at_grid.push_back({static_cast<double>(m), r.workloads.front().law.steps(static_cast<double>(m))});
  p.hline(r.workloads.front().law.n_inf, "#888", "n_inf = " + fmt("%.4g", r.workloads.front().law.n_inf) + " steps");
  p.polyline(curve, series_color(0), "fitted law N(M)");
  p.markers(at_grid, series_color(0), "batch grid");
  const double bc = r.workloads.front().law.b_crit();
  if (std::isfinite(bc) && bc >= xp.lo && bc <= xp.hi)
    p.vline(bc, "#d62728", "B_crit = " + fmt("%.4g", bc) + " samples");
  return p.str();
}

std::string plot_breakdown(const SystemResult& s, int64_t learners) {
  std::vector<const TimePoint*> pts;
  for (const TimePoint& t : s.prediction.points)
    if (t.learners == learners) pts.push_back(&t);
  std::sort(pts.begin(), pts.end(), [](const TimePoint* a, const TimePoint* b) { return a->batch < b->batch; });
  Range x;
  double ymax = 0;
  std::vector<int64_t> grid;
  for (const TimePoint* t : pts) {
    x.add(static_cast<double>(t->batch));
    grid.push_back(t->batch);
    const UpdateBreakdown& b = t->breakdown;
    ymax = std::max(ymax, (b.forward_s + b.backward_s + b.allreduce_exposed_s + b.optimizer_s) * 1e3);
  }
  const std::vector<double> edges = log_edges(grid);
  SvgPlot p(s.name + ": T_update breakdown at P = " + std::to_string(learners) + " chips", 440, 300);
  const Range xp = x.padded_log(0.15);
  p.x_axis("global batch M (samples)", xp.lo, xp.hi, true);
  p.y_axis("time per update (ms)", 0, ymax > 0 ? ymax * 1.05 : 1, false);
  p.legend_top_left();
  static const char* colors[] = {"#4c78a8", "#f58518", "#e45756", "#72b7b2"};
  static const char* names[] = {"forward", "backward", "exposed all-reduce", "optimizer"};
  for (size_t i = 0; i < pts.size(); ++i) {
    const UpdateBreakdown& b = pts[i]->breakdown;
    const double parts[4] = {b.forward_s, b.backward_s, b.allreduce_exposed_s, b.optimizer_s};
    // Bars take 70% of their cell (in log space) so neighbours stay apart.
    const double l = edges[i], h = edges[i + 1], c = static_cast<double>(pts[i]->batch);
    const double x0 = c * std::pow(l / c, 0.7), x1 = c * std::pow(h / c, 0.7);
    double base = 0;
    for (int k = 0; k < 4; ++k) {
      const double top = base + parts[k] * 1e3;
      if (parts[k] > 0)
        p.rect(x0, x1, base, top, colors[k],
               std::string(names[k]) + " " + fmt("%.4g", parts[k] * 1e3) + " ms at M = " + std::to_string(pts[i]->batch));
      base = top;
    }
  }
  for (int k = 0; k < 4; ++k) p.legend_swatch(colors[k], names[k]);
  return p.str();
}

std::string plot_heatmap(const SystemResult& s) {
  const Prediction& pr = s.prediction;
  std::vector<int64_t> ms, ps;
  Range t;
  for (const TimePoint& q : pr.points) {
    ms.push_back(q.batch);
    ps.push_back(q.learners);
    t.add(q.t_total_s);
  }
  ms = sorted_unique(ms);
  ps = sorted_unique(ps);
  const std::vector<double> me = log_edges(ms), pe = log_edges(ps);
  SvgPlot p(s.name + ": total time T(M, P), colour = log10 seconds", 760, 360);
  p.legend_outside();
  p.x_axis("global batch M (samples)", me.empty() ? 1 : me.front(), me.empty() ? 10 : me.back(), true);
  p.y_axis("chips P (chips)", pe.empty() ? 1 : pe.front(), pe.empty() ? 10 : pe.back(), true);
  const double llo = t.empty() ? 0 : std::log10(t.lo), lhi = t.empty() ? 1 : std::log10(t.hi);
  for (const TimePoint& q : pr.points) {
    if (!(q.t_total_s > 0) || !std::isfinite(q.t_total_s)) continue;
    const size_t i = static_cast<size_t>(std::lower_bound(ms.begin(), ms.end(), q.batch) - ms.begin());
    const size_t j = static_cast<size_t>(std::lower_bound(ps.begin(), ps.end(), q.learners) - ps.begin());
    const double f = lhi > llo ? (std::log10(q.t_total_s) - llo) / (lhi - llo) : 0;
    p.rect(me[i], me[i + 1], pe[j], pe[j + 1], viridis(f),
           "M = " + std::to_string(q.batch) + " samples, P = " + std::to_string(q.learners) + " chips: " +
               fmt("%.4g", q.t_total_s) + " s");
  }
  std::vector<XY> path;
  for (const ScalingRow& row : pr.scaling)
    path.push_back({static_cast<double>(row.best.batch), static_cast<double>(row.learners)});
  p.polyline(path, "#fff", "");
  p.markers(path, "#fff", "best M for each P", 3.5);
  p.annotate({static_cast<double>(pr.overall_best.batch), static_cast<double>(pr.overall_best.learners)}, "#ff4081",
             "fastest: " + fmt("%.4g", pr.overall_best.t_total_s) + " s");
  // Colour key: the two ends of the scale, as text a reader can quote.
  p.legend_swatch(viridis(0), "fastest " + fmt("%.3g", t.empty() ? 0 : t.lo) + " s");
  p.legend_swatch(viridis(0.5), "10^" + fmt("%.2g", (llo + lhi) / 2) + " s");
  p.legend_swatch(viridis(1), "slowest " + fmt("%.3g", t.empty() ? 0 : t.hi) + " s");
  return p.str();
}

std::string plot_speedup(const StudyResult& r) {
  Range x, y;
  for (const SystemResult& s : r.systems)
    for (const ScalingRow& row : s.prediction.scaling) {
      x.add(static_cast<double>(row.learners));
      y.add(row.speedup);
    }
  const Range xp = x.padded_log(), yp = Range{std::min(y.lo, 1.0), std::max(y.hi, x.empty() ? 1.0 : x.hi / x.lo)}.padded_log();
  SvgPlot p("Strong-scaling speed-up vs chips (knee circled)", 760, 360);
  p.legend_outside();
  p.x_axis("chips P (chips)", xp.lo, xp.hi, true);
  p.y_axis("speed-up over the smallest P (x)", yp.lo, yp.hi, true);
  if (!x.empty()) p.polyline({{x.lo, 1}, {x.hi, x.hi / x.lo}}, "#aaa", "ideal (linear)", true);
  for (size_t i = 0; i < r.systems.size(); ++i) {
    const SystemResult& s = r.systems[i];
    std::vector<XY> pts;
    for (const ScalingRow& row : s.prediction.scaling) pts.push_back({static_cast<double>(row.learners), row.speedup});
    p.polyline(pts, series_color(i), s.name);
    p.markers(pts, series_color(i), "");
    for (const ScalingRow& row : s.prediction.scaling)
      if (row.learners == s.prediction.knee_learners)
        p.annotate({static_cast<double>(row.learners), row.speedup}, series_color(i),
                   "knee " + std::to_string(row.learners) + " chips", static_cast<int>(i));
  }
  return p.str();
}

std::string plot_strong_weak(const StudyResult& r) {
  Range x, y;
  for (const SystemResult& s : r.systems)
    for (const ScalingRow& row : s.prediction.scaling) {
      x.add(static_cast<double>(row.learners));
      y.add(row.best.t_total_s);
      y.add(row.weak.t_total_s);
    }
  const Range xp = x.padded_log(), yp = y.padded_log();
  SvgPlot p("Strong (best M, solid) vs weak scaling (M/P = " + std::to_string(r.spec.weak_per_learner_batch) +
            " samples, dashed)", 760, 360);
  p.legend_outside();
  p.x_axis("chips P (chips)", xp.lo, xp.hi, true);
  p.y_axis("total time to target (s)", yp.lo, yp.hi, true);
  for (size_t i = 0; i < r.systems.size(); ++i) {
    const SystemResult& s = r.systems[i];
    std::vector<XY> strong, weak;
    for (const ScalingRow& row : s.prediction.scaling) {
      strong.push_back({static_cast<double>(row.learners), row.best.t_total_s});
      weak.push_back({static_cast<double>(row.learners), row.weak.t_total_s});
    }
    p.polyline(strong, series_color(i), s.name + " strong");
    p.markers(strong, series_color(i), "");
    p.polyline(weak, series_color(i), s.name + " weak", true);
  }
  return p.str();
}

}  // namespace kp
