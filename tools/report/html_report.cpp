#include "tools/report/html_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "tools/report/breakdown_plots.h"
#include "tools/report/html_plots.h"
#include "tools/report/plot_util.h"
#include "tools/report/report_writer.h"
#include "tools/report/svg_plot.h"

namespace kp {
namespace {

const char* kStyle = R"(body{font-family:system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:24px auto;
max-width:1320px;padding:0 16px;color:#222;line-height:1.4}
h1{font-size:1.6em;margin-bottom:4px}h2{margin-top:32px;border-bottom:1px solid #ddd;padding-bottom:4px}
p.lede{font-size:1.15em}.muted{color:#666}
table{border-collapse:collapse;margin:8px 0}th,td{border:1px solid #ddd;padding:4px 8px}
th{background:#f3f5f8;text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}
tr.top td{background:#eef7ee}.plots{display:flex;flex-wrap:wrap;gap:12px}
svg.plot{font-size:11px;background:#fafafa;border:1px solid #e4e4e4}
svg.plot .grid{stroke:#e8e8e8;stroke-width:1}svg.plot .axis-label{font-size:12px}
svg.plot .plot-title{font-size:13px;font-weight:600}
.key{margin:4px 0 8px}.key span{display:inline-block;width:12px;height:12px;margin:0 4px 0 14px;vertical-align:-1px}
h3{margin:18px 0 6px;font-size:1.05em}
)";

// Cents for real runs; significant digits for the sub-cent cost of a toy workload, never "0.00".
std::string usd(double v) { return fmt(v >= 0.01 || v == 0 ? "%.2f" : "%.2g", v); }

std::string td(const std::string& s) { return "<td>" + html_escape(s) + "</td>"; }
std::string tdn(const std::string& s) { return "<td class=\"n\">" + html_escape(s) + "</td>"; }

double b_crit_of(const StudyResult& r, const SystemResult& s) {
  return s.prediction.b_crit > 0 ? s.prediction.b_crit : r.workloads.front().law.b_crit();
}

std::string knee_cell(const SystemResult& s) {
  const Prediction& p = s.prediction;
  if (p.knee_learners == 0)
    return "none up to " + std::to_string(p.scaling.empty() ? 0 : p.scaling.back().learners) + " chips";
  return chips_text(p.knee_learners) + " (batch " + std::to_string(p.knee.batch) + ", " +
         human_seconds(p.knee.t_total_s) + ", $" + usd(p.knee.cost_usd) + ")";
}

// Systems in order of best total time; ties keep study order so the page is deterministic.
std::vector<size_t> ranked(const StudyResult& r) {
  std::vector<size_t> order(r.systems.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return r.systems[a].prediction.overall_best.t_total_s < r.systems[b].prediction.overall_best.t_total_s;
  });
  return order;
}

std::string answer_section(const StudyResult& r) {
  std::string h = "<section id=\"answer\"><h2>Answer</h2>\n";
  const std::vector<size_t> order = ranked(r);
  if (!order.empty()) {
    const SystemResult& w = r.systems[order.front()];
    const TimePoint& b = w.prediction.overall_best;
    h += "<p class=\"lede\">Fastest: <b>" + html_escape(w.name) + "</b> with <b>" + std::to_string(b.learners) +
         " chips</b> at global batch <b>" + std::to_string(b.batch) + " samples</b>: <b>" +
         html_escape(human_seconds(b.t_total_s)) + "</b> to target, " + html_escape(human_joules(b.energy_j)) + ", $" + usd(b.cost_usd) + ".</p>\n";
  }
  h += "<table><tr><th>system</th><th>best batch M (samples)</th><th>chips P (chips)</th>"
       "<th>total time</th><th>total time (s)</th><th>energy</th><th>cost (USD)</th>"
       "<th>knee (10% rule)</th><th>B_crit (samples)</th></tr>\n";
  for (const SystemResult& s : r.systems) {
    const TimePoint& b = s.prediction.overall_best;
    h += "<tr>" + td(s.name) + tdn(std::to_string(b.batch)) + tdn(std::to_string(b.learners)) +
         tdn(human_seconds(b.t_total_s)) + tdn(fmt("%.4g", b.t_total_s)) + tdn(human_joules(b.energy_j)) +
         tdn(usd(b.cost_usd)) + td(knee_cell(s)) + tdn(fmt("%.4g", b_crit_of(r, s))) + "</tr>\n";
  }
  h += "</table>\n<p class=\"muted\">Knee: the smallest chip count at which doubling the chips improves the best "
       "training time by less than " + fmt("%.0f", 100 * r.spec.knee_threshold) +
       "%. Energy and cost are for one training run to the target at the best point.</p></section>\n";
  return h;
}

// The P values shown in the breakdown plots: the smallest, the knee (or the middle) and the largest.
std::vector<int64_t> breakdown_learners(const SystemResult& s) {
  std::vector<int64_t> ps;
  const std::vector<ScalingRow>& rows = s.prediction.scaling;
  if (rows.empty()) return ps;
  ps.push_back(rows.front().learners);
  ps.push_back(s.prediction.knee_learners ? s.prediction.knee_learners : rows[rows.size() / 2].learners);
  ps.push_back(rows.back().learners);
  std::sort(ps.begin(), ps.end());
  ps.erase(std::unique(ps.begin(), ps.end()), ps.end());
  return ps;
}

std::string ranked_table(const StudyResult& r) {
  std::string h = "<section id=\"ranking\"><h2>Systems ranked by best time</h2>\n<table><tr><th>rank</th>"
                  "<th>system</th><th>hardware file</th><th>best total time (s)</th><th>chips P (chips)</th>"
                  "<th>batch M (samples)</th><th>energy</th><th>cost (USD)</th><th>knee</th>"
                  "<th>speed-up at largest P (x)</th><th>price (USD per chip-hour)</th></tr>\n";
  int rank = 1;
  for (size_t i : ranked(r)) {
    const SystemResult& s = r.systems[i];
    const TimePoint& b = s.prediction.overall_best;
    const double last = s.prediction.scaling.empty() ? 0 : s.prediction.scaling.back().speedup;
    h += std::string(rank == 1 ? "<tr class=\"top\">" : "<tr>") + tdn(std::to_string(rank)) + td(s.name) +
         td(s.file) + tdn(fmt("%.4g", b.t_total_s)) + tdn(std::to_string(b.learners)) + tdn(std::to_string(b.batch)) +
         tdn(human_joules(b.energy_j)) + tdn(usd(b.cost_usd)) + td(knee_cell(s)) +
         tdn(fmt("%.3g", last)) + tdn(fmt("%.3g", s.cost_per_chip_hour_usd)) + "</tr>\n";
    ++rank;
  }
  return h + "</table></section>\n";
}

}  // namespace

std::string report_html(const StudyResult& r) {
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>kneepoint study: " +
                  html_escape(r.spec.name) + "</title>\n<style>\n" + kStyle + "</style>\n</head>\n<body>\n";
  h += "<h1>kneepoint study: " + html_escape(r.spec.name) + "</h1>\n";
  h += "<p class=\"muted\">Workload <b>" + html_escape(r.workloads.front().name) + "</b> (" +
       fmt("%.3g", static_cast<double>(r.workloads.front().params)) + " parameters); step curve N(M) = " + fmt("%.4g", r.workloads.front().law.n_inf) +
       " + " + fmt("%.4g", r.workloads.front().law.alpha) + "/M steps, B_crit = " + fmt("%.4g", r.workloads.front().law.b_crit()) + " samples; " +
       std::to_string(r.systems.size()) + " hardware systems.</p>\n";
  h += answer_section(r);

  h += "<section id=\"step-curve\"><h2>Step curve</h2>\n<div class=\"plots\">" + plot_step_curve(r) +
       "</div>\n<p class=\"muted\">Below B_crit doubling the batch almost halves the steps (perfect scaling); "
       "above it the steps approach n_inf and larger batches buy little.</p></section>\n";

  h += "<section id=\"breakdown\"><h2>Time per update, broken down</h2>\n<p class=\"muted\">Left: T_update against "
       "the global batch for the smallest chip count, the knee (or the middle of the grid) and the largest. Right: "
       "what the update spends its time on at those chip counts (hover a bar for the times in ms).</p>\n"
       "<div class=\"key\">";
  for (const BreakdownPart& part : breakdown_parts())
    h += "<span style=\"background:" + std::string(part.color) + "\"></span>" + html_escape(part.name);
  h += "</div>\n";
  for (const SystemResult& s : r.systems) {
    const std::vector<int64_t> ps = breakdown_learners(s);
    h += "<h3>" + html_escape(s.name) + "</h3><div class=\"plots\">" + plot_update_time(s, ps);
    for (int64_t p : ps) h += plot_breakdown(s, p);
    h += "</div>\n";
  }
  h += "</section>\n";

  h += "<section id=\"heatmap\"><h2>Total time over batch and chips</h2>\n<p class=\"muted\">Colour: total "
       "time to target (log scale, dark = fast). White path: the best batch for each chip count; ringed: the fastest "
       "point. Blank cells have fewer samples than chips.</p>\n<div class=\"plots\">";
  for (const SystemResult& s : r.systems) h += plot_heatmap(s);
  h += "</div></section>\n";

  h += "<section id=\"speedup\"><h2>Speed-up and the knee</h2>\n<div class=\"plots\">" + plot_speedup(r) +
       "</div></section>\n";
  h += "<section id=\"scaling\"><h2>Strong vs weak scaling</h2>\n<div class=\"plots\">" + plot_strong_weak(r) +
       "</div></section>\n";
  h += ranked_table(r);
  h += "<p class=\"muted\">Every (M, P) point: points.csv; the same numbers as tables: report.md; "
       "machine-readable: summary.json.</p>\n</body>\n</html>\n";
  return h;
}

}  // namespace kp
