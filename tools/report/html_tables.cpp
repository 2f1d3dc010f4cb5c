#include "tools/report/html_tables.h"

#include <algorithm>
#include <cmath>

#include "tools/report/design_metrics.h"
#include "tools/report/plot_util.h"
#include "tools/report/report_select.h"
#include "tools/report/report_writer.h"
#include "tools/report/svg_plot.h"

namespace kp {
namespace {

std::string td(const std::string& s) { return "<td>" + html_escape(s) + "</td>"; }
// A design's name, its hardware file as the hover title.
std::string td_name(const std::string& s, const std::string& file) {
  return "<td class=\"name\" title=\"" + html_escape(file) + "\">" + html_escape(s) + "</td>";
}
std::string tdn(const std::string& s) { return "<td class=\"n\">" + html_escape(s) + "</td>"; }

std::string knee_cell(const SystemResult& s) {
  const Prediction& p = s.prediction;
  if (p.knee_learners == 0)
    return "none up to " + chips_text(p.scaling.empty() ? 0 : p.scaling.back().learners);
  return chips_text(p.knee_learners) + " (batch " + std::to_string(p.knee.batch) + ", " +
         human_seconds(p.knee.t_total_s) + ", $" + usd_text(p.knee.cost_usd) + ")";
}

std::string verify_cell(const SystemResult& s) {
  if (!s.verify.done) return "";
  return fmt("%+.1f%%", 100 * s.verify.t_update_rel_diff) + " (" + fmt("%.4g", s.verify.systemc.t_update_s * 1e3) + " ms)";
}

bool any_verify(const StudyResult& r) {
  for (const SystemResult& s : r.systems)
    if (s.verify.done) return true;
  return false;
}

std::string constraints_text(const StudySpec& spec) {
  std::string c;
  if (spec.max_chips > 0) c += "at most " + chips_text(spec.max_chips);
  if (spec.max_cost_usd > 0) c += std::string(c.empty() ? "" : ", ") + "at most $" + usd_text(spec.max_cost_usd) + " per run";
  return c.empty() ? "" : " Constraints: " + c + ".";
}

std::string objectives_text(const StudySpec& spec) {
  std::string o;
  for (Objective x : spec.objectives) o += std::string(o.empty() ? "" : ", ") + objective_name(x);
  return o;
}

}  // namespace

std::string answer_section(const StudyResult& r) {
  std::string h = "<section id=\"answer\"><h2>Answer</h2>\n";
  const bool verify = any_verify(r);
  const std::vector<size_t> featured = featured_designs(r, r.systems.size());
  for (size_t w = 0; w < r.workloads.size(); ++w) {
    const WorkloadResult& wl = r.workloads[w];
    if (r.workloads.size() > 1) h += "<h3>" + html_escape(wl.name) + "</h3>\n";
    for (size_t i : featured) {
      const SystemResult& s = r.systems[i];
      if (s.workload != w || s.rank != 1) continue;
      const TimePoint& b = s.chosen;
      h += "<p class=\"lede\">Best by " + html_escape(objective_name(r.spec.objectives.front())) + ": <b>" +
           html_escape(s.name) + "</b> with <b>" + chips_text(b.learners) + "</b> at global batch <b>" +
           std::to_string(b.batch) + " samples</b>: <b>" + html_escape(human_seconds(b.t_total_s)) + "</b> to target, " +
           html_escape(human_joules(b.energy_j)) + ", $" + usd_text(b.cost_usd) + ".</p>\n";
    }
    h += "<table><tr><th>hardware (best design)</th><th>best batch M (samples)</th><th>chips P (chips)</th>"
         "<th>total time</th><th>total time (s)</th><th>energy (J)</th><th>cost (USD)</th><th>knee (" +
         fmt("%.0f", 100 * r.spec.knee_threshold) + "% rule)</th><th>B_crit (samples)</th><th>Pareto-optimal</th>" +
         (verify ? "<th>SystemC check: T_update vs analytic</th>" : "") + "</tr>\n";
    for (size_t i : featured) {
      const SystemResult& s = r.systems[i];
      if (s.workload != w) continue;
      const TimePoint& b = reported_point(s);
      const double b_crit = s.prediction.b_crit > 0 ? s.prediction.b_crit : wl.law.b_crit();
      h += std::string(s.rank == 1 ? "<tr class=\"top\">" : "<tr>") + td_name(s.name, s.file) + tdn(std::to_string(b.batch)) +
           tdn(std::to_string(b.learners)) + tdn(human_seconds(b.t_total_s)) + tdn(fmt("%.4g", b.t_total_s)) +
           tdn(fmt("%.4g", b.energy_j)) + tdn(usd_text(b.cost_usd)) + td(knee_cell(s)) + tdn(fmt("%.4g", b_crit)) +
           td(!s.feasible ? "infeasible" : s.pareto ? "yes" : "no") + (verify ? tdn(verify_cell(s)) : "") + "</tr>\n";
    }
    h += "</table>\n";
  }
  h += "<p class=\"muted\">Best point of a design: the feasible (M, P) point that is best by the objectives (" +
       html_escape(objectives_text(r.spec)) + ", in that order)." + html_escape(constraints_text(r.spec)) +
       " Knee: the smallest chip count at which doubling the chips improves the best training time by less than " +
       fmt("%.0f", 100 * r.spec.knee_threshold) + "%. Energy and cost are for one training run to the target.</p>";
  return h + "</section>\n";
}

std::string ranked_table(const StudyResult& r, size_t max_rows) {
  // Swept keys as columns (named by the last part of the key), so the table reads like a grid.
  std::vector<std::string> keys;
  for (const SystemResult& s : r.systems)
    for (const Override& o : s.overrides)
      if (std::find(keys.begin(), keys.end(), o.key) == keys.end()) keys.push_back(o.key);
  const bool several = r.workloads.size() > 1, verify = any_verify(r);
  // Smaller type, and a scroll box rather than a page wider than the window when a study sweeps many keys.
  std::string h = "<section id=\"ranking\"><h2>All designs ranked</h2>\n<div class=\"wide\"><table class=\"dense\"><tr>"
                  "<th>rank</th><th>" +
                  std::string(keys.empty() ? "design" : "hardware") + "</th>";
  for (const std::string& k : keys) h += "<th title=\"" + html_escape(k) + "\">" + html_escape(k.substr(k.find_last_of('.') + 1)) + "</th>";
  if (several) h += "<th>workload</th>";
  h += "<th>total time (s)</th><th>chips P (chips)</th><th>batch M (samples)</th><th>energy (J)</th>"
       "<th>cost (USD)</th><th>perf/W (samples/J)</th><th>perf/$ (samples/USD)</th><th>knee (chips)</th>"
       "<th title=\"over the study's objectives / not beaten on time, cost and energy together\">Pareto: "
       "objectives / time, cost, energy</th>";
  if (verify) h += "<th>SystemC T_update vs analytic</th>";
  h += "<th>price (USD per chip-hour)</th></tr>\n";
  const std::vector<size_t> order = ranked_designs(r);
  const std::vector<bool> front3 = pareto_time_cost_energy(r);
  const auto per = [](double v) { return v > 0 ? fmt("%.4g", v) : std::string("-"); };
  for (size_t k = 0; k < order.size() && k < max_rows; ++k) {
    const SystemResult& s = r.systems[order[k]];
    const TimePoint& b = reported_point(s);
    h += std::string(s.rank == 1 ? "<tr class=\"top\">" : "<tr>") + tdn(s.rank > 0 ? std::to_string(s.rank) : "-") +
         td_name(keys.empty() || s.hardware_name.empty() ? s.name : s.hardware_name, s.file);
    for (const std::string& key : keys) {
      std::string v;
      for (const Override& o : s.overrides)
        if (o.key == key) v = o.value;
      h += tdn(v);
    }
    if (several) h += td(r.workloads[s.workload].name);
    h += tdn(fmt("%.4g", b.t_total_s)) + tdn(std::to_string(b.learners)) + tdn(std::to_string(b.batch)) +
         tdn(fmt("%.4g", b.energy_j)) + tdn(usd_text(b.cost_usd)) + tdn(per(samples_per_joule(b))) +
         tdn(per(samples_per_usd(b))) + tdn(s.prediction.knee_learners ? std::to_string(s.prediction.knee_learners) : "none") +
         td(!s.feasible ? "infeasible" : std::string(s.pareto ? "yes" : "no") + " / " + (front3[order[k]] ? "yes" : "no"));
    if (verify) h += tdn(s.verify.done ? fmt("%+.1f%%", 100 * s.verify.t_update_rel_diff) : "");
    h += tdn(fmt("%.3g", s.cost_per_chip_hour_usd)) + "</tr>\n";
  }
  h += "</table></div>\n<p class=\"muted\">perf/W and perf/$: training samples processed per joule and per dollar "
       "at the design's best point (the hardware's efficiency at that batch). A larger batch needs more samples to reach "
       "the target, so compare energy and cost for the run itself.</p>\n";
  if (order.size() > max_rows)
    h += "<p class=\"muted\">The first " + std::to_string(max_rows) + " of " + std::to_string(order.size()) +
         " designs; all of them are in designs.csv.</p>\n";
  return h + "</section>\n";
}

}  // namespace kp
