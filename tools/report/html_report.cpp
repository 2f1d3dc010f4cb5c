#include "tools/report/html_report.h"

#include <algorithm>

#include "tools/report/breakdown_plots.h"
#include "tools/report/html_plots.h"
#include "tools/report/html_tables.h"
#include "tools/report/layout_table.h"
#include "tools/report/pareto_plot.h"
#include "tools/report/plot_util.h"
#include "tools/report/report_select.h"
#include "tools/report/report_writer.h"
#include "tools/report/svg_plot.h"
#include "tools/report/sweep_plots.h"

namespace kp {
namespace {

const char* kStyle = R"(body{font-family:system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:24px auto;
max-width:1320px;padding:0 16px;color:#222;line-height:1.4}
h1{font-size:1.6em;margin-bottom:4px}h2{margin-top:32px;border-bottom:1px solid #ddd;padding-bottom:4px}
p.lede{font-size:1.15em}.muted{color:#666}
table{border-collapse:collapse;margin:8px 0}th,td{border:1px solid #ddd;padding:4px 8px}
th{background:#f3f5f8;text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}td.name{min-width:9em}
tr.top td{background:#eef7ee}.plots{display:flex;flex-wrap:wrap;gap:12px}
svg.plot{font-size:11px;background:#fafafa;border:1px solid #e4e4e4}
svg.plot .grid{stroke:#e8e8e8;stroke-width:1}svg.plot .axis-label{font-size:12px}
svg.plot .plot-title{font-size:13px;font-weight:600}
.key{margin:4px 0 8px}.key span{display:inline-block;width:12px;height:12px;margin:0 4px 0 14px;vertical-align:-1px}
h3{margin:18px 0 6px;font-size:1.05em}div.wide{overflow-x:auto}table.dense{font-size:.85em}table.dense th,table.dense td{padding:3px 5px}
)";

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

std::string header(const StudyResult& r, size_t featured) {
  std::string h = "<h1>kneepoint study: " + html_escape(r.spec.name) + "</h1>\n<p class=\"muted\">";
  for (const WorkloadResult& w : r.workloads)
    h += "Workload <b>" + html_escape(w.name) + "</b> (" + fmt("%.3g", static_cast<double>(w.params)) +
         " parameters; step curve N(M) = " + fmt("%.4g", w.law.n_inf) + " + " + fmt("%.4g", w.law.alpha) +
         "/M steps, B_crit = " + fmt("%.4g", w.law.b_crit()) + " samples). ";
  h += std::to_string(r.systems.size()) + (r.systems.size() == 1 ? " design point" : " design points") + " from " +
       std::to_string(r.spec.hardware.size()) + " hardware file" + (r.spec.hardware.size() == 1 ? "" : "s") +
       (r.spec.fidelity == "systemc" ? ", every point simulated in SystemC" : ", analytic model") +
       (r.spec.verify_top > 0 ? " (best " + std::to_string(r.spec.verify_top) + " per workload re-simulated in SystemC)" : "") +
       ".";
  if (featured < r.systems.size())
    h += " The plots per design show the best design of each hardware file (" + std::to_string(featured) + ").";
  return h + "</p>\n";
}

std::string step_curve_section(const StudyResult& r) {
  std::string h = "<section id=\"step-curve\"><h2>Step curve</h2>\n<div class=\"plots\">";
  std::string bands;
  for (const WorkloadResult& w : r.workloads) {
    h += plot_step_curve(w, r.spec.batches);
    if (!w.band.empty())
      bands += html_escape(w.name) + ": the law fitted to " + std::to_string(w.band.measured.size()) +
               " measured batch sizes (squares); shaded, the " + fmt("%.0f", 100 * w.band.confidence) +
               "% pointwise bootstrap interval of N(M) (" + html_escape(w.band.method) + " resampled). ";
  }
  return h + "</div>\n<p class=\"muted\">" + bands + "Below B_crit doubling the batch almost halves the steps (perfect scaling); "
             "above it the steps approach n_inf and larger batches buy little.</p></section>\n";
}

std::string breakdown_section(const StudyResult& r, const std::vector<size_t>& featured) {
  std::string h = "<section id=\"breakdown\"><h2>Time per update, broken down</h2>\n<p class=\"muted\">Left: T_update "
                  "against the global batch for the smallest chip count, the knee (or the middle of the grid) and the "
                  "largest. Right: what the update spends its time on at those chip counts (hover a bar for the times "
                  "in ms).</p>\n<div class=\"key\">";
  for (const BreakdownPart& part : breakdown_parts())
    if (r.spec.has_layout || std::string(part.name).rfind("pipeline", 0) != 0)  // bubbles only under layouts
      h += "<span style=\"background:" + std::string(part.color) + "\"></span>" + html_escape(part.name);
  h += "</div>\n";
  for (size_t i : featured) {
    const SystemResult& s = r.systems[i];
    const std::vector<int64_t> ps = breakdown_learners(s);
    h += "<h3>" + html_escape(s.name) + "</h3><div class=\"plots\">" + plot_update_time(s, ps);
    for (int64_t p : ps) h += plot_breakdown(s, p);
    h += "</div>\n";
  }
  return h + "</section>\n";
}

std::string pareto_section(const StudyResult& r) {
  std::string h;
  for (size_t w = 0; w < r.workloads.size(); ++w) {
    std::vector<DesignMark> marks;
    for (size_t i : designs_of_workload(r, w)) {
      const SystemResult& s = r.systems[i];
      if (!s.feasible) continue;
      marks.push_back({design_label(s), s.chosen.t_total_s, s.chosen.cost_usd, s.chosen.energy_j, s.pareto});
    }
    if (marks.size() < 2) continue;
    if (r.workloads.size() > 1) h += "<h3>" + html_escape(r.workloads[w].name) + "</h3>";
    h += "<div class=\"plots\">" + plot_pareto(marks, ParetoCost::usd) + plot_pareto(marks, ParetoCost::joules) + "</div>\n";
  }
  if (h.empty()) return h;
  std::string objectives;
  for (Objective o : r.spec.objectives) objectives += std::string(objectives.empty() ? "" : ", ") + objective_name(o);
  return "<section id=\"pareto\"><h2>Pareto front</h2>\n<p class=\"muted\">Each dot is a feasible design at its best "
         "point. Red: Pareto-optimal over the study's objectives (" + html_escape(objectives) + "): no other design is "
         "at least as good on all of them and better on one. Dashed: the designs no other beats on both plotted axes. "
         "Hover a dot for its name.</p>\n" + h + "</section>\n";
}

}  // namespace

std::string report_html(const StudyResult& r) {
  const std::vector<size_t> featured = featured_designs(r);
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>kneepoint study: " +
                  html_escape(r.spec.name) + "</title>\n<style>\n" + kStyle + "</style>\n</head>\n<body>\n";
  h += header(r, featured.size());
  h += answer_section(r);
  h += sweep_section(r);
  h += step_curve_section(r);
  h += breakdown_section(r, featured);
  h += "<section id=\"heatmap\"><h2>Total time over batch and chips</h2>\n<p class=\"muted\">Colour: total "
       "time to target (log scale, dark = fast). White path: the best batch for each chip count; ringed: the fastest "
       "point. Blank cells have fewer samples than chips.</p>\n<div class=\"plots\">";
  for (size_t i : featured) h += plot_heatmap(r.systems[i]);
  h += "</div></section>\n";
  h += "<section id=\"speedup\"><h2>Speed-up and the knee</h2>\n<div class=\"plots\">" + plot_speedup(r, featured) +
       "</div></section>\n";
  h += "<section id=\"scaling\"><h2>Strong vs weak scaling</h2>\n<div class=\"plots\">" + plot_strong_weak(r, featured) +
       "</div></section>\n";
  h += pareto_section(r);
  h += layout_section_html(r);
  h += ranked_table(r);
  h += "<p class=\"muted\">Every (M, P) point: points.csv; one row per design: designs.csv; the same numbers as "
       "tables: report.md; machine-readable: summary.json.</p>\n</body>\n</html>\n";
  return h;
}

}  // namespace kp
