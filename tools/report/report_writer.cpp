#include "tools/report/report_writer.h"

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "core/atomic_file.h"
#include "core/json_writer.h"
#include "tools/report/html_report.h"
#include "tools/report/plot_util.h"

namespace kp {
namespace {

std::string knee_text(const SystemResult& s) {
  const Prediction& p = s.prediction;
  if (p.knee_learners == 0)
    return "none within " + std::to_string(p.scaling.back().learners) +
           " chips (every doubling in the grid still pays off)";
  return chips_text(p.knee_learners);
}

}  // namespace

std::string human_seconds(double s) {
  if (!std::isfinite(s)) return "inf";
  if (s >= 2 * 86400) return fmt("%.1f days", s / 86400);
  if (s >= 2 * 3600) return fmt("%.1f h", s / 3600);
  if (s >= 120) return fmt("%.1f min", s / 60);
  if (s >= 1) return fmt("%.2f s", s);
  if (s >= 1e-3) return fmt("%.2f ms", s * 1e3);
  return fmt("%.1f us", s * 1e6);
}

std::string human_joules(double j) {
  if (!std::isfinite(j)) return "inf";
  if (j >= 3.6e9) return fmt("%.3g MWh", j / 3.6e9);
  if (j >= 3.6e6) return fmt("%.3g kWh", j / 3.6e6);
  if (j >= 1e3) return fmt("%.3g kJ", j / 1e3);
  if (j >= 1) return fmt("%.3g J", j);
  return fmt("%.3g mJ", j * 1e3);
}

std::string report_markdown(const StudyResult& r) {
  std::string md = "# kneepoint study: " + r.spec.name + "\n\n";
  md += "Workload **" + r.workloads.front().name + "** (" + fmt("%.3g", static_cast<double>(r.workloads.front().params)) +
        " parameters); step curve N(M) = " + fmt("%.4g", r.workloads.front().law.n_inf) + " + " + fmt("%.4g", r.workloads.front().law.alpha) +
        "/M steps, B_crit = " + fmt("%.4g", r.workloads.front().law.b_crit()) + " samples. Knee: the smallest chip count at which "
        "doubling the chips improves the best training time by less than " +
        fmt("%.0f", 100 * r.spec.knee_threshold) + "%.\n\n";
  md += "## Answer\n\n";
  for (const SystemResult& s : r.systems) {
    const Prediction& p = s.prediction;
    const TimePoint& k = p.knee;
    md += "- **" + s.name + "**: fastest at " + chips_text(p.overall_best.learners) + ", batch " +
          std::to_string(p.overall_best.batch) + " samples: " + human_seconds(p.overall_best.t_total_s) +
          " to target. Knee at " + knee_text(s) + ": batch " + std::to_string(k.batch) + " samples, " +
          human_seconds(k.t_total_s) + " total, " + human_joules(k.energy_j) + ", $" +
          fmt("%.2f", k.cost_usd) + ".\n";
  }
  md += "\n## Best batch per chip count\n";
  for (const SystemResult& s : r.systems) {
    md += "\n### " + s.name + " (`" + s.file + "`)\n\n";
    md += "| chips | best batch (samples) | steps | T_update (ms) | exposed all-reduce (ms) | total time (s) | "
          "speed-up (x) | energy | cost (USD) | weak-scaling time (s) |\n";
    md += "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    for (const ScalingRow& row : s.prediction.scaling) {
      const TimePoint& b = row.best;
      md += "| " + std::to_string(row.learners) + (row.learners == s.prediction.knee_learners ? " (knee)" : "") +
            " | " + std::to_string(b.batch) + " | " + fmt("%.0f", b.steps) + " | " +
            fmt("%.4g", b.t_update_s * 1e3) + " | " + fmt("%.4g", b.breakdown.allreduce_exposed_s * 1e3) +
            " | " + fmt("%.4g", b.t_total_s) + " | " + fmt("%.3g", row.speedup) + " | " +
            human_joules(b.energy_j) + " | " + fmt("%.3g", b.cost_usd) + " | " +
            fmt("%.4g", row.weak.t_total_s) + " |\n";
    }
  }
  md += "\nAll points: `points.csv`; machine-readable summary: `summary.json`.\n";
  return md;
}

std::string points_csv(const StudyResult& r) {
  std::string csv =
      "system,batch,learners,per_learner_batch,steps,t_update_s,forward_s,backward_s,allreduce_s,"
      "allreduce_exposed_s,optimizer_s,t_total_s,energy_j,cost_usd\n";
  for (const SystemResult& s : r.systems) {
    for (const TimePoint& p : s.prediction.points) {
      const UpdateBreakdown& b = p.breakdown;
      csv += s.name + "," + std::to_string(p.batch) + "," + std::to_string(p.learners) + "," +
             std::to_string(p.per_learner_batch);
      for (double v : {p.steps, p.t_update_s, b.forward_s, b.backward_s, b.allreduce_s, b.allreduce_exposed_s,
                       b.optimizer_s, p.t_total_s, p.energy_j, p.cost_usd})
        csv += "," + fmt("%.9g", v);
      csv += "\n";
    }
  }
  return csv;
}

namespace {
void point_json(JsonWriter& j, const TimePoint& p) {
  j.begin_object();
  j.key("batch").value(p.batch).key("learners").value(p.learners);
  j.key("per_learner_batch").value(p.per_learner_batch).key("steps").value(p.steps);
  j.key("t_update_s").value(p.t_update_s).key("t_total_s").value(p.t_total_s);
  j.key("energy_j").value(p.energy_j).key("cost_usd").value(p.cost_usd);
  j.end_object();
}
}  // namespace

std::string summary_json(const StudyResult& r) {
  JsonWriter j;
  j.begin_object();
  j.key("study").value(r.spec.name).key("workload").value(r.workloads.front().name);
  j.key("params").value(r.workloads.front().params);
  j.key("step_curve").begin_object().key("n_inf").value(r.workloads.front().law.n_inf).key("alpha").value(r.workloads.front().law.alpha);
  j.key("b_crit").value(r.workloads.front().law.b_crit()).end_object();
  j.key("knee_threshold").value(r.spec.knee_threshold);
  j.key("systems").begin_array();
  for (const SystemResult& s : r.systems) {
    j.begin_object().key("name").value(s.name).key("file").value(s.file);
    j.key("knee_learners");
    if (s.prediction.knee_learners) j.value(s.prediction.knee_learners); else j.null();
    j.key("knee");
    point_json(j, s.prediction.knee);
    j.key("best");
    point_json(j, s.prediction.overall_best);
    j.key("best_per_learners").begin_array();
    for (const ScalingRow& row : s.prediction.scaling) point_json(j, row.best);
    j.end_array();
    j.end_object();
  }
  j.end_array().end_object();
  return j.str() + "\n";
}

void write_report(const StudyResult& r, const std::string& dir) {
  // Like `mkdir -p`: the default output folder's parent does not exist on a fresh clone.
  for (size_t pos = dir.find('/', 1); ; pos = dir.find('/', pos + 1)) {
    const std::string prefix = pos == std::string::npos ? dir : dir.substr(0, pos);
    if (!prefix.empty() && ::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST)
      throw std::runtime_error("cannot create folder " + prefix);
    if (pos == std::string::npos) break;
  }
  write_file_atomic(dir + "/report.md", report_markdown(r));
  write_file_atomic(dir + "/points.csv", points_csv(r));
  write_file_atomic(dir + "/summary.json", summary_json(r));
  write_file_atomic(dir + "/report.html", report_html(r));
}

}  // namespace kp
