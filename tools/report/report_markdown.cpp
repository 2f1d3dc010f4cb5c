// report.md: the same numbers as report.html, as Markdown tables. The answer comes first and
// ends where "## Best batch" begins (`kneepoint study` prints exactly that part).
#include <cmath>

#include "tools/report/design_figures.h"
#include "tools/report/design_metrics.h"
#include "tools/report/plot_util.h"
#include "tools/report/report_select.h"
#include "tools/report/layout_table.h"
#include "tools/report/report_writer.h"
#include "tools/report/sweep_plots.h"

namespace kp {
namespace {

// Markdown table cells: a pipe inside a name would split the cell.
std::string cell(std::string s) {
  for (size_t at = s.find('|'); at != std::string::npos; at = s.find('|', at + 2)) s.replace(at, 1, "\\|");
  return s;
}

}  // namespace

std::string report_markdown(const StudyResult& r) {
  std::string md = "# kneepoint study: " + r.spec.name + "\n\n";
  for (const WorkloadResult& w : r.workloads)
    md += "Workload **" + w.name + "** (" + fmt("%.3g", static_cast<double>(w.params)) +
          " parameters); step curve N(M) = " + fmt("%.4g", w.law.n_inf) + " + " + fmt("%.4g", w.law.alpha) +
          "/M steps, B_crit = " + fmt("%.4g", w.law.b_crit()) + " samples.\n";
  md += "\n" + std::to_string(r.systems.size()) + " design points. Knee: the smallest chip count at which doubling the "
        "chips improves the best training time by less than " + fmt("%.0f", 100 * r.spec.knee_threshold) + "%.\n\n";
  md += "## Answer\n\n";
  const std::vector<size_t> featured = featured_designs(r, r.systems.size());
  for (size_t i : featured) {
    const SystemResult& s = r.systems[i];
    const Prediction& p = s.prediction;
    const TimePoint& b = reported_point(s);
    const TimePoint& k = p.knee;
    md += "- **" + s.name + "**" + (r.workloads.size() > 1 ? " (" + r.workloads[s.workload].name + ")" : "") +
          (s.feasible ? "" : " (no point meets the constraints; fastest shown)") + ": best at " +
          chips_text(b.learners) + ", batch " + std::to_string(b.batch) + " samples: " + total_seconds_text(b.t_total_s) +
          " to target, " + energy_text(b.energy_j) + ", $" + usd_text(b.cost_usd) + (s.rank == 1 ? " (rank 1)" : "") +
          (p.knee_learners == 0 ? ". No knee within " + chips_text(p.scaling.empty() ? 0 : p.scaling.back().learners) +
                                      " (every doubling in the grid still pays off)"
                                : ". Knee at " + chips_text(p.knee_learners) + ": batch " + std::to_string(k.batch) +
                                      " samples, " + total_seconds_text(k.t_total_s) + " total, " + energy_text(k.energy_j) +
                                      ", $" + usd_text(k.cost_usd)) +
          (s.verify.done ? ". SystemC check: T_update " + fmt("%+.1f%%", 100 * s.verify.t_update_rel_diff) : "") +
          ". At the best point: " + power_text(s, b) +
          (silicon_text(s).empty() ? "" : "; " + silicon_text(s)) + ".\n";
  }
  const std::string optimum = sweep_optimum_text(r);
  if (!optimum.empty()) md += "\nSwept keys: " + optimum.substr(0, optimum.size() - 1) + "\n";
  md += "\n## Best batch per chip count\n";
  for (size_t i : featured_designs(r)) {
    const SystemResult& s = r.systems[i];
    md += "\n### " + s.name + " (`" + shown_path(r, s.file) + "`)\n\n";
    md += "| chips | best batch (samples) | steps | T_update (ms) | exposed all-reduce (ms) | total time (s) | "
          "speed-up (x) | energy (J) | cost (USD) | weak-scaling time (s) |\n";
    md += "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    for (const ScalingRow& row : s.prediction.scaling) {
      const TimePoint& b = row.best;
      md += "| " + std::to_string(row.learners) + (row.learners == s.prediction.knee_learners ? " (knee)" : "") +
            " | " + std::to_string(b.batch) + " | " + fmt("%.0f", b.steps) + " | " + fmt("%.4g", b.t_update_s * 1e3) +
            " | " + fmt("%.4g", b.breakdown.allreduce_exposed_s * 1e3) + " | " + fmt("%.4g", b.t_total_s) + " | " +
            fmt("%.3g", row.speedup) + " | " + fmt("%.4g", b.energy_j) + " | " + fmt("%.3g", b.cost_usd) + " | " +
            (row.weak.fits ? fmt("%.4g", row.weak.t_total_s) : std::string("does not fit")) + " |\n";
    }
  }
  for (const WorkloadResult& w : r.workloads) {
    if (w.band.empty()) continue;
    md += "\n## Step curve of " + w.name + "\n\n| batch (samples) | measured steps | fitted N(M) (steps) | " +
          fmt("%.0f", 100 * w.band.confidence) + "% band low (steps) | band high (steps) |\n|---:|---:|---:|---:|---:|\n";
    for (size_t k = 0; k < w.band.measured.size(); ++k)
      md += "| " + fmt("%.0f", w.band.measured[k].batch) + " | " + fmt("%.0f", w.band.measured[k].steps) + " | " +
            fmt("%.0f", w.law.steps(w.band.measured[k].batch)) + " | " + fmt("%.0f", w.band.measured_lo[k]) + " | " +
            fmt("%.0f", w.band.measured_hi[k]) + " |\n";
  }
  md += layout_section_md(r);
  md += "\n## All designs ranked\n\n| rank | design | workload | total time (s) | chips | batch (samples) | energy (J) | "
        "cost (USD) | perf/W (samples/J) | perf/$ (samples/USD) | knee (chips) | Pareto-optimal | "
        "Pareto time, cost, energy | SystemC T_update vs analytic |\n"
        "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---:|\n";
  const std::vector<size_t> order = ranked_designs(r);
  const std::vector<bool> front3 = pareto_time_cost_energy(r);
  const auto per = [](double v) { return v > 0 ? fmt("%.4g", v) : std::string("-"); };
  const size_t max_rows = 100;
  for (size_t k = 0; k < order.size() && k < max_rows; ++k) {
    const SystemResult& s = r.systems[order[k]];
    const TimePoint& b = reported_point(s);
    md += "| " + (s.rank > 0 ? std::to_string(s.rank) : std::string("-")) + " | " + cell(s.name) + " | " +
          cell(r.workloads[s.workload].name) + " | " + fmt("%.4g", b.t_total_s) + " | " + std::to_string(b.learners) +
          " | " + std::to_string(b.batch) + " | " + fmt("%.4g", b.energy_j) + " | " + fmt("%.3g", b.cost_usd) + " | " +
          per(samples_per_joule(b)) + " | " + per(samples_per_usd(b)) + " | " +
          (s.prediction.knee_learners ? std::to_string(s.prediction.knee_learners) : std::string("none")) + " | " +
          (!s.feasible ? "infeasible" : s.pareto ? "yes" : "no") + " | " +
          (!s.feasible ? "-" : front3[order[k]] ? "yes" : "no") + " | " +
          (s.verify.done ? fmt("%+.1f%%", 100 * s.verify.t_update_rel_diff) : std::string("")) + " |\n";
  }
  if (order.size() > max_rows)
    md += "\nThe first " + std::to_string(max_rows) + " of " + std::to_string(order.size()) + " designs; all are in designs.csv.\n";
  md += "\nEvery (M, P) point: `points.csv`; one row per design: `designs.csv`; machine-readable summary: `summary.json`.\n";
  return md;
}

}  // namespace kp
