#include "tools/report/breakdown_plots.h"

#include <algorithm>
#include <cmath>

#include "tools/report/plot_util.h"
#include "tools/report/report_select.h"
#include "tools/report/svg_plot.h"

namespace kp {
namespace {

std::vector<const TimePoint*> points_at(const SystemResult& s, int64_t learners) {
  std::vector<const TimePoint*> pts;
  for (const TimePoint& t : s.prediction.points)
    if (t.learners == learners) pts.push_back(&t);
  std::sort(pts.begin(), pts.end(), [](const TimePoint* a, const TimePoint* b) { return a->batch < b->batch; });
  return pts;
}

std::vector<double> parts_s(const UpdateBreakdown& b) {
  return {b.forward_s, b.backward_s, b.allreduce_exposed_s, b.optimizer_s, b.pipeline_bubble_s + b.p2p_s};
}

}  // namespace

const std::vector<BreakdownPart>& breakdown_parts() {
  static const std::vector<BreakdownPart> parts = {
      {"forward", "#4c78a8"}, {"backward", "#f58518"}, {"exposed all-reduce", "#e45756"}, {"optimizer", "#54a24b"},
      {"pipeline bubble and stage transfers", "#9d755d"}};
  return parts;
}

const char* learners_color(size_t i) {
  static const char* colors[] = {"#3b528b", "#21918c", "#b5a000", "#8c564b"};
  return colors[i % 4];
}

std::string plot_update_time(const SystemResult& s, const std::vector<int64_t>& learners) {
  Range x, y;
  for (int64_t p : learners)
    for (const TimePoint* t : points_at(s, p)) {
      x.add(static_cast<double>(t->batch));
      y.add(t->t_update_s * 1e3);
    }
  const Range xp = x.padded_log(), yp = y.padded_log();
  SvgPlot p(design_label(s) + ": T_update vs M", 340, 270);
  p.x_axis("global batch M (samples)", xp.lo, xp.hi, true);
  p.x_ticks(pow2_ticks(x.lo, x.hi, 4));
  p.y_axis("time per update (ms)", yp.lo, yp.hi, true);
  p.legend_top_left();
  for (size_t i = 0; i < learners.size(); ++i) {
    std::vector<XY> line;
    for (const TimePoint* t : points_at(s, learners[i])) line.push_back({static_cast<double>(t->batch), t->t_update_s * 1e3});
    p.polyline(line, learners_color(i), "P = " + chips_text(learners[i]));
    p.markers(line, learners_color(i), "", 2.5);
  }
  return p.str();
}

std::string plot_breakdown(const SystemResult& s, int64_t learners) {
  const std::vector<const TimePoint*> pts = points_at(s, learners);
  Range x;
  std::vector<int64_t> grid;
  for (const TimePoint* t : pts) {
    x.add(static_cast<double>(t->batch));
    grid.push_back(t->batch);
  }
  const std::vector<double> edges = log_edges(grid);
  SvgPlot p("at P = " + chips_text(learners), 300, 270);
  const Range xp = x.padded_log(0.15);
  p.x_axis("global batch M (samples)", xp.lo, xp.hi, true);
  p.x_ticks(pow2_ticks(x.lo, x.hi, 4));
  p.y_axis("share of time per update (%)", 0, 100, false);
  p.y_ticks({0, 25, 50, 75, 100});
  for (size_t i = 0; i < pts.size(); ++i) {
    const std::vector<double> parts = parts_s(pts[i]->breakdown);
    double total = 0;
    for (double v : parts) total += v;
    if (!(total > 0)) continue;
    // Bars take 70% of their cell (in log space) so neighbours stay apart.
    const double l = edges[i], h = edges[i + 1], c = static_cast<double>(pts[i]->batch);
    const double x0 = c * std::pow(l / c, 0.7), x1 = c * std::pow(h / c, 0.7);
    double base = 0;
    for (size_t k = 0; k < parts.size(); ++k) {
      const double top = base + 100 * parts[k] / total;
      if (parts[k] > 0)
        p.rect(x0, x1, base, top, breakdown_parts()[k].color,
               std::string(breakdown_parts()[k].name) + ": " + fmt("%.4g", parts[k] * 1e3) + " ms of " +
                   fmt("%.4g", total * 1e3) + " ms (" + fmt("%.0f", 100 * parts[k] / total) + "%) at M = " +
                   std::to_string(pts[i]->batch) + " samples");
      base = top;
    }
  }
  return p.str();
}

}  // namespace kp
