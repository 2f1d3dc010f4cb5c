#include "tools/report/layout_table.h"

#include <functional>

#include "tools/report/plot_util.h"
#include "tools/report/report_select.h"
#include "tools/report/report_writer.h"
#include "tools/report/svg_plot.h"

namespace kp {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

struct Row {
  std::string chips, batch, layout, memory_gib, bubble_ms, tp_ms, exposed_ms, t_update_ms, total;
};

// The design's rows and its count of infeasible points.
std::vector<Row> rows_of(const SystemResult& s, int64_t& infeasible, int64_t& points) {
  infeasible = s.prediction.infeasible_points;
  points = static_cast<int64_t>(s.prediction.points.size()) + infeasible;
  std::vector<Row> rows;
  for (const ScalingRow& row : s.prediction.scaling) {
    const TimePoint& b = row.best;
    const UpdateBreakdown& d = b.breakdown;
    rows.push_back({std::to_string(row.learners) + (row.learners == s.prediction.knee_learners ? " (knee)" : ""),
                    std::to_string(b.batch), b.layout.text(), fmt("%.3g", b.memory.total() / kGiB),
                    fmt("%.4g", d.pipeline_bubble_s * 1e3), fmt("%.4g", d.tp_comm_s * 1e3),
                    fmt("%.4g", d.allreduce_exposed_s * 1e3), fmt("%.4g", b.t_update_s * 1e3),
                    fmt("%.4g", b.t_total_s)});
  }
  return rows;
}

const char* const kHeads[] = {"chips",          "best batch (samples)", "layout",           "memory per chip (GiB)",
                              "bubble (ms)",    "tensor-parallel all-reduces (ms)", "exposed gradient and ZeRO communication (ms)",
                              "T_update (ms)",  "time to target (s)"};

std::string infeasible_text(int64_t infeasible, int64_t points) {
  return std::to_string(infeasible) + " of " + std::to_string(points) +
         " (batch, chips) points fit no layout tried in device memory: infeasible, never chosen.";
}

// A layout ("dp=2,tp=4,pp=16,zero=1,...") has no space to wrap at: without a break opportunity
// after each comma its cell alone widened the GPT-3 study's page to 1344 px in a 1280 px window.
std::string breakable_at_commas(const std::string& escaped) {
  std::string out;
  for (char c : escaped) out += c == ',' ? std::string(",<wbr>") : std::string(1, c);
  return out;
}

}  // namespace

std::string layout_section_md(const StudyResult& r) {
  if (!r.spec.has_layout) return "";
  std::string md = "\n## Parallel layouts (" + std::string(r.spec.layout.search ? "searched" : "fixed: " + r.spec.layout.fixed.text()) +
                   ")\n";
  for (size_t i : featured_designs(r)) {
    const SystemResult& s = r.systems[i];
    int64_t infeasible = 0, points = 0;
    const std::vector<Row> rows = rows_of(s, infeasible, points);
    md += "\n### " + s.name + "\n\n" + infeasible_text(infeasible, points) + "\n\n|";
    for (const char* h : kHeads) md += " " + std::string(h) + " |";
    md += "\n|---:|---:|---|---:|---:|---:|---:|---:|---:|\n";
    for (const Row& w : rows)
      md += "| " + w.chips + " | " + w.batch + " | " + w.layout + " | " + w.memory_gib + " | " + w.bubble_ms + " | " +
            w.tp_ms + " | " + w.exposed_ms + " | " + w.t_update_ms + " | " + w.total + " |\n";
  }
  return md;
}

std::string layout_section_html(const StudyResult& r) {
  if (!r.spec.has_layout) return "";
  std::string h = "<section id=\"layouts\"><h2>Parallel layouts</h2>\n";
  for (size_t i : featured_designs(r)) {
    const SystemResult& s = r.systems[i];
    int64_t infeasible = 0, points = 0;
    const std::vector<Row> rows = rows_of(s, infeasible, points);
    h += "<h3>" + html_escape(s.name) + "</h3>\n<p>" + html_escape(infeasible_text(infeasible, points)) +
         "</p>\n<table><tr>";
    for (const char* head : kHeads) h += "<th>" + html_escape(head) + "</th>";
    h += "</tr>\n";
    for (const Row& w : rows) {
      h += "<tr>";
      for (const std::string* c : {&w.chips, &w.batch, &w.layout, &w.memory_gib, &w.bubble_ms, &w.tp_ms, &w.exposed_ms,
                                   &w.t_update_ms, &w.total})
        h += c == &w.layout ? "<td>" + breakable_at_commas(html_escape(*c)) + "</td>" : "<td class=\"n\">" + html_escape(*c) + "</td>";
      h += "</tr>\n";
    }
    h += "</table>\n";
  }
  return h + "</section>\n";
}

}  // namespace kp
