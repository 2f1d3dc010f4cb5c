#include "tools/report/html_plots.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "tools/report/plot_util.h"
#include "tools/report/report_select.h"
#include "tools/report/svg_plot.h"

namespace kp {

std::string plot_step_curve(const WorkloadResult& w, const std::vector<int64_t>& batches) {
  const StepLaw& law = w.law;
  const std::vector<int64_t> grid = sorted_unique(batches);
  Range x, y;
  for (int64_t m : grid) {
    x.add(static_cast<double>(m));
    y.add(law.steps(static_cast<double>(m)));
  }
  y.add(law.n_inf);
  const StepBand& band = w.band;
  for (const CurvePoint& q : band.measured) {
    x.add(q.batch);
    y.add(q.steps);
  }
  for (size_t k = 0; k < band.batch.size(); ++k) {
    y.add(band.lo[k]);
    y.add(band.hi[k]);
  }
  const Range xp = x.padded_log(), yp = {y.empty() ? 1 : y.lo / std::pow(10.0, 0.25), y.padded_log().hi};
  SvgPlot p(w.name + ": N(M) = " + fmt("%.4g", law.n_inf) + " + " + fmt("%.4g", law.alpha) + " / M");
  p.x_axis("global batch M (samples)", xp.lo, xp.hi, true);
  p.x_ticks(pow2_ticks(x.lo, x.hi, 7));
  p.y_axis("optimizer steps to target (steps)", yp.lo, yp.hi, true);
  std::vector<XY> curve, at_grid;
  for (int i = 0; i <= 96 && !x.empty(); ++i) {
    const double m = x.lo * std::pow(x.hi / x.lo, i / 96.0);
    curve.push_back({m, law.steps(m)});
  }
  for (int64_t m : grid) at_grid.push_back({static_cast<double>(m), law.steps(static_cast<double>(m))});
  p.hline(law.n_inf, "#888", "n_inf = " + fmt("%.4g", law.n_inf) + " steps");
  if (!band.batch.empty()) {
    std::vector<XY> lo, hi;
    for (size_t k = 0; k < band.batch.size(); ++k) {
      lo.push_back({band.batch[k], band.lo[k]});
      hi.push_back({band.batch[k], band.hi[k]});
    }
    p.band(lo, hi, series_color(0), fmt("%.0f", 100 * band.confidence) + "% bootstrap band (" + band.method + ")");
  }
  p.polyline(curve, series_color(0), "fitted law N(M)");
  if (band.measured.empty()) {
    p.markers(at_grid, series_color(0), "law at the batch grid");
  } else {
    std::vector<XY> measured;
    for (const CurvePoint& q : band.measured) measured.push_back({q.batch, q.steps});
    p.markers(measured, "#222", "measured (min steps per batch)", 3.5, true);
  }
  const double bc = law.b_crit();
  if (std::isfinite(bc) && bc >= xp.lo && bc <= xp.hi)
    p.vline(bc, "#d62728", "B_crit = " + fmt(bc >= 1000 ? "%.0f" : "%.3g", bc) + " samples");
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
  SvgPlot p(design_label(s) + ": total time to target T(M, P)", 636, 340);
  p.legend_outside();
  p.x_axis("global batch M (samples)", me.empty() ? 1 : me.front(), me.empty() ? 10 : me.back(), true);
  p.x_ticks(pow2_ticks(ms.empty() ? 1 : static_cast<double>(ms.front()), ms.empty() ? 1 : static_cast<double>(ms.back()), 7));
  p.y_axis("chips P (chips)", pe.empty() ? 1 : pe.front(), pe.empty() ? 10 : pe.back(), true);
  p.y_ticks(pow2_ticks(ps.empty() ? 1 : static_cast<double>(ps.front()), ps.empty() ? 1 : static_cast<double>(ps.back()), 11));
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
  p.markers(path, "#fff", "", 3);
  p.annotate({static_cast<double>(pr.overall_best.batch), static_cast<double>(pr.overall_best.learners)}, "#fff",
             "fastest: " + fmt("%.4g", pr.overall_best.t_total_s) + " s", 0, "#000");
  // A continuous colour key with ticks at decades (or at 1-2-5 when the span is short).
  std::vector<std::string> colours;
  for (int k = 0; k < 48; ++k) colours.push_back(viridis((k + 0.5) / 48));
  std::vector<double> ticks;
  if (!t.empty()) {
    const bool fine = lhi - llo < 3;
    for (int e = static_cast<int>(std::floor(llo)); e <= static_cast<int>(std::ceil(lhi)); ++e)
      for (double m : fine ? std::vector<double>{1, 2, 5} : std::vector<double>{1}) ticks.push_back(m * std::pow(10.0, e));
  }
  p.colour_bar(colours, t.empty() ? 1 : t.lo, t.empty() ? 10 : t.hi, true, ticks, "total time (s), log");
  return p.str();
}

std::string plot_speedup(const StudyResult& r, const std::vector<size_t>& designs) {
  Range x, y;
  for (size_t i : designs)
    for (const ScalingRow& row : r.systems[i].prediction.scaling) {
      x.add(static_cast<double>(row.learners));
      y.add(row.speedup);
    }
  // The y range follows the data (not the ideal line), so a speed-up of 4 is not squashed under
  // an ideal of 1000; the ideal line is clipped to the frame.
  const double ymax = std::max(2.0, y.empty() ? 2.0 : y.hi * 2);
  const Range xp = x.padded_log(), yp = Range{std::min(y.empty() ? 1.0 : y.lo, 1.0), ymax}.padded_log(0.04);
  SvgPlot p("Strong-scaling speed-up vs chips (knee circled)", 760, 340);
  p.legend_outside();
  p.x_axis("chips P (chips)", xp.lo, xp.hi, true);
  p.x_ticks(pow2_ticks(x.lo, x.hi, 11));
  p.y_axis("speed-up over the smallest P (x)", yp.lo, yp.hi, true);
  if (!x.empty()) p.polyline({{x.lo, 1}, {std::min(x.hi, x.lo * yp.hi), std::min(x.hi / x.lo, yp.hi)}}, "#aaa",
                             "ideal (linear)", true);
  for (size_t i = 0; i < designs.size(); ++i) {
    const SystemResult& s = r.systems[designs[i]];
    std::vector<XY> pts;
    for (const ScalingRow& row : s.prediction.scaling) pts.push_back({static_cast<double>(row.learners), row.speedup});
    p.polyline(pts, series_color(i), design_label(s));
    p.markers(pts, series_color(i), "");
    for (const ScalingRow& row : s.prediction.scaling)
      if (row.learners == s.prediction.knee_learners)
        p.annotate({static_cast<double>(row.learners), row.speedup}, series_color(i),
                   "knee " + chips_text(row.learners));
  }
  return p.str();
}

std::string plot_strong_weak(const StudyResult& r, const std::vector<size_t>& designs) {
  Range x, y;
  for (size_t i : designs)
    for (const ScalingRow& row : r.systems[i].prediction.scaling) {
      x.add(static_cast<double>(row.learners));
      y.add(row.best.t_total_s);
      if (row.weak.fits) y.add(row.weak.t_total_s);
    }
  const Range xp = x.padded_log(), yp = y.padded_log();
  SvgPlot p("Strong (best M, solid) vs weak scaling (M/P = " + std::to_string(r.spec.weak_per_learner_batch) +
            " samples, dashed)", 760, 340);
  p.legend_outside();
  p.x_axis("chips P (chips)", xp.lo, xp.hi, true);
  p.x_ticks(pow2_ticks(x.lo, x.hi, 11));
  p.y_axis("total time to target (s)", yp.lo, yp.hi, true);
  for (size_t i = 0; i < designs.size(); ++i) {
    const SystemResult& s = r.systems[designs[i]];
    std::vector<XY> strong, weak;
    for (const ScalingRow& row : s.prediction.scaling) {
      strong.push_back({static_cast<double>(row.learners), row.best.t_total_s});
      if (row.weak.fits) weak.push_back({static_cast<double>(row.learners), row.weak.t_total_s});
    }
    p.polyline(strong, series_color(i), design_label(s) + " strong");
    p.markers(strong, series_color(i), "");
    p.polyline(weak, series_color(i), design_label(s) + " weak", true);
  }
  return p.str();
}

}  // namespace kp
