// points.csv, designs.csv and summary.json: the study's numbers for pandas and scripts. Column and
// key names carry SI units (s, J, USD, samples). A swept key whose values are numbers with one unit
// is a numeric column named by the key and that unit (interconnect.link.bandwidth_GBps: 50); one
// of names (a dataflow) holds the YAML text under the bare key. summary.json keeps the YAML text.
#include <algorithm>
#include <cctype>
#include <cmath>

#include "core/json_writer.h"
#include "core/number_format.h"
#include "tools/report/design_metrics.h"
#include "tools/report/sweep_plots.h"
#include "tools/report/plot_util.h"
#include "tools/report/report_select.h"
#include "tools/report/report_writer.h"

namespace kp {
namespace {

// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string num(double v) { return format_sig(v, 9); }

// The swept keys of the study in first-seen order (every design of a study sweeps the same keys).
using SweptKeys = std::vector<SweptAxis>;

// System `i`'s value of each swept key: the number of a numeric key, else the YAML text.
std::string swept_values(const StudyResult& r, size_t i, const SweptKeys& keys) {
  std::string out;
  for (const SweptAxis& k : keys) {
    std::string v;
    for (const Override& o : r.systems[i].overrides)
      if (o.key == k.key) v = k.numeric ? num(k.values[i]) : o.value;
    out += "," + csv_field(v);
  }
  return out;
}

// "GB/s" -> "GBps": a unit as part of a column name.
std::string unit_suffix(const std::string& unit) {
  std::string out;
  for (char c : unit) out += c == '/' ? std::string("p") : std::isalnum(static_cast<unsigned char>(c)) ? std::string(1, c) : "";
  return out.empty() ? out : "_" + out;
}

std::string key_columns(const SweptKeys& keys) {
  std::string out;
  for (const SweptAxis& k : keys) out += "," + csv_field(k.key + (k.numeric ? unit_suffix(k.unit) : ""));
  return out;
}

void point_json(JsonWriter& j, const TimePoint& p) {
  j.begin_object();
  j.key("batch").value(p.batch).key("learners").value(p.learners);
  j.key("per_learner_batch").value(p.per_learner_batch).key("steps").value(p.steps);
  j.key("t_update_s").value(p.t_update_s).key("t_total_s").value(p.t_total_s);
  j.key("energy_j").value(p.energy_j).key("cost_usd").value(p.cost_usd);
  j.end_object();
}

}  // namespace

std::string points_csv(const StudyResult& r) {
  const SweptKeys keys = swept_axes(r);
  std::string csv =
      "system,batch,learners,per_learner_batch,steps,t_update_s,forward_s,backward_s,allreduce_s,"
      "allreduce_exposed_s,optimizer_s,t_total_s,energy_j,cost_usd,fits,layout,memory_GiB,pipeline_bubble_s,"
      "tp_comm_s,design_index,workload" + key_columns(keys) + "\n";
  for (size_t i = 0; i < r.systems.size(); ++i) {
    const SystemResult& s = r.systems[i];
    const std::string tail = "," + std::to_string(s.index) + "," + csv_field(r.workloads.at(s.workload).name) +
                             swept_values(r, i, keys) + "\n";
    for (const TimePoint& p : s.prediction.points) {
      const UpdateBreakdown& b = p.breakdown;
      csv += csv_field(s.name) + "," + std::to_string(p.batch) + "," + std::to_string(p.learners) + "," +
             std::to_string(p.per_learner_batch);
      for (double v : {p.steps, p.t_update_s, b.forward_s, b.backward_s, b.allreduce_s, b.allreduce_exposed_s,
                       b.optimizer_s, p.t_total_s, p.energy_j, p.cost_usd})
        csv += "," + num(v);
      csv += std::string(",") + (p.fits ? "1" : "0") + "," + csv_field(p.layout.text()) + "," +
             num(p.memory.total() / 1073741824.0) + "," + num(b.pipeline_bubble_s) + "," + num(b.tp_comm_s);
      csv += tail;
    }
  }
  return csv;
}

std::string designs_csv(const StudyResult& r) {
  const SweptKeys keys = swept_axes(r);
  std::string csv = "design_index,design,workload,hardware_file" + key_columns(keys) +
                    ",feasible,rank,pareto,batch,learners,steps,t_update_s,t_total_s,energy_j,cost_usd,"
                    "knee_learners,b_crit_samples,max_learners,price_usd_per_chip_hour,fidelity,"
                    "systemc_t_update_s,systemc_vs_analytic_t_update_rel,avg_chip_power_w,tdp_w,power_clock_scale,area_mm2,"
                    "chip_price_usd,runs_per_mwh,runs_per_kusd,perf_per_w_samples_per_j,perf_per_usd_samples_per_usd,"
                    "pareto_time_cost_energy\n";
  const std::vector<bool> front3 = pareto_time_cost_energy(r);
  for (size_t i : ranked_designs(r)) {
    const SystemResult& s = r.systems[i];
    const TimePoint& p = reported_point(s);
    csv += std::to_string(s.index) + "," + csv_field(s.name) + "," + csv_field(r.workloads.at(s.workload).name) + "," +
           csv_field(s.file) + swept_values(r, i, keys) + "," + (s.feasible ? "1" : "0") + "," + std::to_string(s.rank) +
           "," + (s.pareto ? "1" : "0") + "," + std::to_string(p.batch) + "," + std::to_string(p.learners);
    for (double v : {p.steps, p.t_update_s, p.t_total_s, p.energy_j, p.cost_usd}) csv += "," + num(v);
    // "No knee" and "not modelled" are empty cells: a 0 would read as a value.
    auto opt = [](bool given, double v) { return given ? num(v) : std::string(); };
    csv += "," + (s.prediction.knee_learners ? std::to_string(s.prediction.knee_learners) : std::string()) + "," +
           num(s.prediction.b_crit) + "," + std::to_string(s.max_learners) + "," + num(s.cost_per_chip_hour_usd) + "," +
           csv_field(s.fidelity) + "," +
           (s.verify.done ? num(s.verify.systemc.t_update_s) + "," + num(s.verify.t_update_rel_diff) : ",");
    csv += "," + opt(p.t_total_s > 0, p.average_chip_power_w()) + "," + opt(s.tdp_w > 0, s.tdp_w) + "," +
           num(p.breakdown.power_clock_scale) + "," + opt(s.area_m2 > 0, s.area_m2 * 1e6) + "," + opt(s.chip_price_usd > 0, s.chip_price_usd) + "," +
           opt(p.energy_j > 0, 3.6e9 / p.energy_j) + "," + opt(p.cost_usd > 0, 1000.0 / p.cost_usd) + "," +
           opt(samples_per_joule(p) > 0, samples_per_joule(p)) + "," + opt(samples_per_usd(p) > 0, samples_per_usd(p)) +
           "," + (front3[i] ? "1" : "0") + "\n";
  }
  return csv;
}

std::string summary_json(const StudyResult& r) {
  JsonWriter j;
  j.begin_object();
  j.key("study").value(r.spec.name);
  j.key("objectives").begin_array();
  for (Objective o : r.spec.objectives) j.value(objective_name(o));
  j.end_array();
  j.key("max_chips").value(r.spec.max_chips).key("max_cost_usd").value(r.spec.max_cost_usd);
  j.key("fidelity").value(r.spec.fidelity).key("verify_top").value(r.spec.verify_top);
  j.key("knee_threshold").value(r.spec.knee_threshold);
  j.key("workloads").begin_array();
  for (const WorkloadResult& w : r.workloads) {
    j.begin_object().key("name").value(w.name).key("file").value(w.file).key("params").value(w.params);
    j.key("step_curve").begin_object().key("n_inf_steps").value(w.law.n_inf).key("alpha_samples").value(w.law.alpha);
    j.key("b_crit_samples").value(w.law.b_crit());
    if (!w.band.empty()) {
      j.key("confidence").value(w.band.confidence).key("bootstrap").value(w.band.method);
      j.key("measured").begin_array();
      for (size_t k = 0; k < w.band.measured.size(); ++k)
        j.begin_object().key("batch").value(w.band.measured[k].batch).key("steps").value(w.band.measured[k].steps)
            .key("band_lo_steps").value(w.band.measured_lo[k]).key("band_hi_steps").value(w.band.measured_hi[k])
            .end_object();
      j.end_array();
    }
    j.end_object().end_object();
  }
  j.end_array();
  j.key("designs").begin_array();
  for (size_t i : ranked_designs(r)) {
    const SystemResult& s = r.systems[i];
    j.begin_object().key("index").value(static_cast<int64_t>(s.index)).key("name").value(s.name);
    j.key("workload").value(r.workloads.at(s.workload).name).key("file").value(s.file);
    j.key("overrides").begin_object();
    for (const Override& o : s.overrides) j.key(o.key).value(o.value);
    j.end_object();
    j.key("feasible").value(s.feasible).key("rank").value(s.rank).key("pareto").value(s.pareto);
    j.key("chosen");
    point_json(j, reported_point(s));
    j.key("knee_learners");
    if (s.prediction.knee_learners) j.value(s.prediction.knee_learners); else j.null();
    j.key("knee");
    point_json(j, s.prediction.knee);
    j.key("fastest");
    point_json(j, s.prediction.overall_best);
    j.key("verify");
    if (s.verify.done) {
      j.begin_object().key("systemc_t_update_s").value(s.verify.systemc.t_update_s);
      j.key("rel_diff_t_update").value(s.verify.t_update_rel_diff).end_object();
    } else {
      j.null();
    }
    j.key("best_per_learners").begin_array();
    for (const ScalingRow& row : s.prediction.scaling) point_json(j, row.best);
    j.end_array();
    j.end_object();
  }
  j.end_array().end_object();
  return j.str() + "\n";
}

}  // namespace kp
