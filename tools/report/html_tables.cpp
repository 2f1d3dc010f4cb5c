#include "tools/report/html_tables.h"

#include <algorithm>
#include <cmath>
#include <vector>

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
         total_seconds_text(p.knee.t_total_s) + ", $" + usd_text(p.knee.cost_usd) + ")";
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
           std::to_string(b.batch) + " samples</b>: <b>" + html_escape(total_seconds_text(b.t_total_s)) + "</b> to target, " +
           html_escape(energy_text(b.energy_j)) + ", $" + usd_text(b.cost_usd) + ".</p>\n";
    }
    h += "<table><tr><th>hardware (best design)</th><th>best batch M (samples)</th><th>chips P (chips)</th>"
         "<th>total time (s)</th><th>energy (J)</th><th>cost (USD)</th><th>knee (" +
         fmt("%.0f", 100 * r.spec.knee_threshold) + "% rule)</th><th>B_crit (samples)</th><th>Pareto-optimal</th>" +
         (verify ? "<th>SystemC check: T_update vs analytic</th>" : "") + "</tr>\n";
    for (size_t i : featured) {
      const SystemResult& s = r.systems[i];
      if (s.workload != w) continue;
      const TimePoint& b = reported_point(s);
      const double b_crit = s.prediction.b_crit > 0 ? s.prediction.b_crit : wl.law.b_crit();
      h += std::string(s.rank == 1 ? "<tr class=\"top\">" : "<tr>") + td_name(s.name, shown_path(r, s.file)) + tdn(std::to_string(b.batch)) +
           tdn(std::to_string(b.learners)) + tdn(fmt("%.4g", b.t_total_s)) +
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

namespace {

// One column of the ranking table: its header (and hover title), whether it is numeric, its cells.
struct RankColumn {
  std::string header, title;
  bool numeric = true, foldable = false;  // foldable: said once above the table when every row agrees
  std::vector<std::string> cells;
};

}  // namespace

std::string ranked_table(const StudyResult& r, size_t max_rows) {
  // Swept keys as columns (named by the last part of the key), so the table reads like a grid.
  std::vector<std::string> keys;
  for (const SystemResult& s : r.systems)
    for (const Override& o : s.overrides)
      if (std::find(keys.begin(), keys.end(), o.key) == keys.end()) keys.push_back(o.key);
  const std::vector<size_t> order = ranked_designs(r);
  const std::vector<bool> front3 = pareto_time_cost_energy(r);
  const size_t rows = std::min(order.size(), max_rows);
  std::vector<RankColumn> cols;
  auto column = [&](const std::string& header, bool numeric, auto cell, const std::string& title = "",
                    bool foldable = false) {
    RankColumn c{header, title, numeric, foldable, {}};
    for (size_t k = 0; k < rows; ++k) c.cells.push_back(cell(r.systems[order[k]], order[k]));
    cols.push_back(std::move(c));
  };
  column("rank", true, [](const SystemResult& s, size_t) { return s.rank > 0 ? std::to_string(s.rank) : "-"; });
  column(keys.empty() ? "design" : "hardware", false, [&](const SystemResult& s, size_t) {
    return keys.empty() || s.hardware_name.empty() ? s.name : s.hardware_name;
  }, "", true);
  for (const std::string& key : keys)
    column(key.substr(key.find_last_of('.') + 1), true, [&](const SystemResult& s, size_t) {
      for (const Override& o : s.overrides)
        if (o.key == key) return o.value;
      return std::string();
    }, key);
  if (r.workloads.size() > 1)
    column("workload", false, [&](const SystemResult& s, size_t) { return r.workloads[s.workload].name; }, "", true);
  const auto per = [](double v) { return v > 0 ? fmt("%.4g", v) : std::string("-"); };
  column("total time (s)", true, [](const SystemResult& s, size_t) { return fmt("%.4g", reported_point(s).t_total_s); });
  column("chips P (chips)", true, [](const SystemResult& s, size_t) { return std::to_string(reported_point(s).learners); });
  column("batch M (samples)", true, [](const SystemResult& s, size_t) { return std::to_string(reported_point(s).batch); });
  column("energy (J)", true, [](const SystemResult& s, size_t) { return fmt("%.4g", reported_point(s).energy_j); });
  column("cost (USD)", true, [](const SystemResult& s, size_t) { return usd_text(reported_point(s).cost_usd); });
  column("perf/W (samples/J)", true, [&](const SystemResult& s, size_t) { return per(samples_per_joule(reported_point(s))); });
  column("perf/$ (samples/USD)", true, [&](const SystemResult& s, size_t) { return per(samples_per_usd(reported_point(s))); });
  column("knee (chips)", true, [](const SystemResult& s, size_t) {
    return s.prediction.knee_learners ? std::to_string(s.prediction.knee_learners) : "none";
  }, "", true);
  column("Pareto: objectives / time, cost, energy", false, [&](const SystemResult& s, size_t i) {
    return !s.feasible ? "infeasible" : std::string(s.pareto ? "yes" : "no") + " / " + (front3[i] ? "yes" : "no");
  }, "over the study's objectives / not beaten on time, cost and energy together");
  if (any_verify(r))
    column("SystemC T_update vs analytic", true, [](const SystemResult& s, size_t) {
      return s.verify.done ? fmt("%+.1f%%", 100 * s.verify.t_update_rel_diff) : "";
    }, "", true);
  column("price (USD per chip-hour)", true,
         [](const SystemResult& s, size_t) { return fmt("%.3g", s.cost_per_chip_hour_usd); }, "", true);
  // A descriptive column that is the same in every row (the hardware of a design space, its price)
  // is said once above the table, so that the table fits its column; the figures always stay.
  std::string same;
  if (rows > 1)
    for (size_t c = 1; c < cols.size(); ++c) {
      const RankColumn& col = cols[c];
      if (!col.foldable) continue;
      if (std::count(col.cells.begin(), col.cells.end(), col.cells.front()) != static_cast<long>(rows)) continue;
      same += std::string(same.empty() ? "" : "; ") + col.header + ": " + col.cells.front();
      cols[c].cells.clear();
    }
  std::string h = "<section id=\"ranking\"><h2>All designs ranked</h2>\n";
  if (!same.empty()) h += "<p class=\"muted\">The same for every design below: " + html_escape(same) + ".</p>\n";
  // Smaller type, and a scroll box rather than a page wider than the window when a study sweeps many keys.
  h += "<div class=\"wide\"><table class=\"dense\"><tr>";
  for (const RankColumn& c : cols) {
    if (rows > 0 && c.cells.empty()) continue;
    h += c.title.empty() ? "<th>" : "<th title=\"" + html_escape(c.title) + "\">";
    h += html_escape(c.header) + "</th>";
  }
  h += "</tr>\n";
  for (size_t k = 0; k < rows; ++k) {
    const SystemResult& s = r.systems[order[k]];
    h += s.rank == 1 ? "<tr class=\"top\">" : "<tr>";
    for (size_t c = 0; c < cols.size(); ++c) {
      if (cols[c].cells.empty()) continue;
      const std::string& v = cols[c].cells[k];
      h += c == 1 ? td_name(v, shown_path(r, s.file)) : cols[c].numeric ? tdn(v) : td(v);
    }
    h += "</tr>\n";
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
