#include "tools/report/pareto_plot.h"

#include <algorithm>
#include <cmath>

#include "tools/report/plot_util.h"
#include "tools/report/report_writer.h"
#include "tools/report/svg_plot.h"

namespace kp {
namespace {

double y_of(const DesignMark& d, ParetoCost y) { return y == ParetoCost::usd ? d.cost_usd : d.energy_j; }

bool shown(const DesignMark& d, ParetoCost y) {
  return std::isfinite(d.time_s) && d.time_s > 0 && std::isfinite(y_of(d, y)) && y_of(d, y) > 0;
}

// A linear axis padded by 8% when the data spans less than a decade, a padded log axis otherwise.
void axis(SvgPlot& p, bool x, const std::string& label, const Range& r) {
  const bool log = r.hi >= 10 * r.lo;
  const Range pr = log ? r.padded_log() : Range{std::max(0.0, r.lo - 0.08 * (r.hi - r.lo + r.lo * 0.1)),
                                                 r.hi + 0.08 * (r.hi - r.lo + r.hi * 0.1)};
  if (x) p.x_axis(label, pr.lo, pr.hi, log); else p.y_axis(label, pr.lo, pr.hi, log);
}

}  // namespace

std::vector<size_t> front_2d(const std::vector<DesignMark>& designs, ParetoCost y) {
  std::vector<size_t> idx;
  for (size_t i = 0; i < designs.size(); ++i)
    if (shown(designs[i], y)) idx.push_back(i);
  std::vector<size_t> front;
  for (size_t i : idx) {
    bool dominated = false;
    for (size_t j : idx) {
      const bool no_worse = designs[j].time_s <= designs[i].time_s && y_of(designs[j], y) <= y_of(designs[i], y);
      const bool better = designs[j].time_s < designs[i].time_s || y_of(designs[j], y) < y_of(designs[i], y);
      if (j != i && no_worse && better) { dominated = true; break; }
    }
    if (!dominated) front.push_back(i);
  }
  std::stable_sort(front.begin(), front.end(), [&](size_t a, size_t b) { return designs[a].time_s < designs[b].time_s; });
  return front;
}

std::string plot_pareto(const std::vector<DesignMark>& designs, ParetoCost y) {
  Range xr, yr;
  size_t hidden = 0;
  for (const DesignMark& d : designs) {
    if (!shown(d, y)) { ++hidden; continue; }
    xr.add(d.time_s);
    yr.add(y_of(d, y));
  }
  const std::string what = y == ParetoCost::usd ? "cost" : "energy";
  SvgPlot p("Time vs " + what + " of " + std::to_string(designs.size() - hidden) + " designs" +
                (hidden ? " (" + std::to_string(hidden) + " without a " + what + " left out)" : ""),
            636, 360);
  p.legend_outside();
  axis(p, true, "total time to target (s)", xr.empty() ? Range{1, 10} : xr);
  axis(p, false, y == ParetoCost::usd ? "cost per training run (USD)" : "energy per training run (J)",
       yr.empty() ? Range{1, 10} : yr);
  const auto title = [&](const DesignMark& d) {
    return d.label + ": " + total_seconds_text(d.time_s) + ", " +
           (y == ParetoCost::usd ? "$" + fmt("%.4g", d.cost_usd) : energy_text(d.energy_j)) +
           (d.pareto ? " (Pareto-optimal)" : "");
  };
  for (const DesignMark& d : designs)
    if (shown(d, y) && !d.pareto) p.point({d.time_s, y_of(d, y)}, "#5b84c4", 4, title(d));
  // The staircase: from each front point go right (slower) until the next, cheaper one.
  const std::vector<size_t> front = front_2d(designs, y);
  std::vector<XY> stairs;
  for (size_t k = 0; k < front.size(); ++k) {
    const DesignMark& d = designs[front[k]];
    if (k > 0) stairs.push_back({d.time_s, stairs.back().y});
    stairs.push_back({d.time_s, y_of(d, y)});
  }
  p.polyline(stairs, "#555", "front in this projection", true);
  size_t flagged = 0;
  for (const DesignMark& d : designs)
    if (shown(d, y) && d.pareto) {
      p.point({d.time_s, y_of(d, y)}, "#d62728", 5.5, title(d));
      ++flagged;
    }
  p.legend_point("#5b84c4", "design point");
  if (flagged) p.legend_point("#d62728", "Pareto-optimal");
  // Name the designs on the 2-D front, at most six, skipping a label that would sit on top of the
  // previous one (designs tied on both axes), so the plot stays readable.
  std::vector<XY> labelled;
  for (size_t k = 0; k < front.size() && labelled.size() < 6; ++k) {
    const DesignMark& d = designs[front[k]];
    const XY at{p.px(d.time_s), p.py(y_of(d, y))};
    bool crowded = false;
    for (XY q : labelled) crowded = crowded || (std::fabs(q.x - at.x) < 60 && std::fabs(q.y - at.y) < 16);
    if (crowded) continue;
    labelled.push_back(at);
    p.annotate({d.time_s, y_of(d, y)}, "#333", d.label.size() > 40 ? d.label.substr(0, 39) + "\u2026" : d.label);
  }
  return p.str();
}

}  // namespace kp
