// report.html: the answer first, every plot present with data and units, escaped text, no script.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/config_doc.h"
#include "tools/report/html_report.h"
#include "tools/report/html_tables.h"
#include "tools/report/report_writer.h"
#include "tools/report/svg_plot.h"
#include "tools/study/study_runner.h"

namespace kp {
namespace {

const std::string kSrc = KP_SOURCE_DIR;

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

std::vector<std::string> svg_blocks(const std::string& html) {
  std::vector<std::string> out;
  for (size_t at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1)) {
    const size_t end = html.find("</svg>", at);
    out.push_back(html.substr(at, end == std::string::npos ? std::string::npos : end + 6 - at));
  }
  return out;
}

const StudyResult& quickstart() {
  static const StudyResult r = run_study(parse_study(ConfigDoc::load(kSrc + "/studies/quickstart.yaml")), nullptr);
  return r;
}

TimePoint point(int64_t m, int64_t p, double t_update_s, const StepLaw& law) {
  TimePoint t;
  t.batch = m;
  t.learners = p;
  t.per_learner_batch = m / p;
  t.steps = law.steps(static_cast<double>(m));
  t.t_update_s = t_update_s;
  t.t_total_s = t.steps * t_update_s;
  t.breakdown = {t_update_s / 2, t_update_s / 4, 0, t_update_s / 8, t_update_s / 8, t_update_s};
  return t;
}

}  // namespace

TEST(HtmlEscape, EscapesMarkupCharacters) {
  EXPECT_EQ(html_escape("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
}

TEST(SvgPlot, LogAxisMapsDecadesLinearly) {
  // 560 px wide, 72 px left and 16 px right margin: 472 px for two decades.
  SvgPlot p("t");
  p.x_axis("x (samples)", 1, 100, true);
  p.y_axis("y (s)", 0, 10, false);
  EXPECT_DOUBLE_EQ(p.px(1), 72);
  EXPECT_DOUBLE_EQ(p.px(10), 72 + 236);
  EXPECT_DOUBLE_EQ(p.px(100), 72 + 472);
  // 340 px tall, 30 top and 48 bottom margin: y = 5 sits at the middle of the 262 px frame.
  EXPECT_DOUBLE_EQ(p.py(5), 340 - 48 - 131);
}

TEST(SvgPlot, DropsPointsALogAxisCannotShow) {
  SvgPlot p("t");
  p.x_axis("x (samples)", 1, 100, true);
  p.y_axis("y (s)", 1, 100, true);
  p.polyline({{0, 1}, {-5, 2}}, "#000", "");
  EXPECT_EQ(count(p.str(), "<polyline"), 0u);
  p.polyline({{0, 1}, {10, 10}}, "#000", "");
  EXPECT_EQ(count(p.str(), "<polyline"), 1u);
}

TEST(HtmlReport, QuickstartOpensWithTheAnswer) {
  const StudyResult& r = quickstart();
  const std::string html = report_html(r);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  for (const char* fetch : {"src=", "<link", "url(", "@import"}) EXPECT_EQ(html.find(fetch), std::string::npos) << fetch;
  const size_t answer = html.find("id=\"answer\"");
  ASSERT_NE(answer, std::string::npos);
  EXPECT_LT(answer, html.find("<svg"));
  const std::string answer_text = html.substr(answer, html.find("</section>", answer) - answer);
  for (const SystemResult& s : r.systems) {
    SCOPED_TRACE(s.name);
    EXPECT_NE(answer_text.find(html_escape(s.name)), std::string::npos);
    EXPECT_NE(answer_text.find(">" + std::to_string(s.prediction.overall_best.batch) + "<"), std::string::npos);
  }
  // One unit per quantity: the energy column is in J like the ranking, the plots and the CSV.
  for (const char* unit : {"energy (J)", "(USD)", "B_crit (samples)"}) EXPECT_NE(answer_text.find(unit), std::string::npos);
  EXPECT_EQ(html, report_html(r));  // deterministic
}

TEST(HtmlReport, EveryPlotHasDataAndUnits) {
  const StudyResult& r = quickstart();
  const std::string html = report_html(r);
  const std::vector<std::string> svgs = svg_blocks(html);
  // Step curve, speed-up, strong/weak, one heat map and at least one breakdown per system.
  ASSERT_GE(svgs.size(), 3 + 2 * r.systems.size());
  for (const std::string& svg : svgs) {
    SCOPED_TRACE(svg.substr(0, 300));
    const size_t shapes = count(svg, "<polyline") + count(svg, "<circle") + count(svg, "</title></rect>");
    EXPECT_GT(shapes, 0u);
    EXPECT_NE(svg.find("</svg"), std::string::npos);
    EXPECT_GE(count(svg, "class=\"axis-label\""), 2u);
  }
  for (const char* label : {"global batch M (samples)", "chips P (chips)", "total time to target (s)",
                            "time per update (ms)", "optimizer steps to target (steps)", "log scale", "B_crit ="})
    EXPECT_NE(html.find(label), std::string::npos) << label;
  EXPECT_EQ(count(html, "id=\"ranking\""), 1u);
}

TEST(HtmlReport, EscapesNamesFromTheStudy) {
  StudyResult r;
  r.spec.name = "<b>study</b>";
  r.workloads.push_back(WorkloadResult{"net & \"co\"", "wl.yaml", {100, 25600}, 0, {}});
  SystemResult s;
  s.name = "chip<x>";
  s.file = "hw/a&b.yaml";
  for (int64_t p : {1, 2})
    for (int64_t m : {32, 64, 128}) s.prediction.points.push_back(point(m, p, 0.01 / p + 1e-4 * m / p, r.workloads.front().law));
  for (int64_t p : {1, 2}) {
    ScalingRow row;
    row.learners = p;
    row.best = s.prediction.points[p == 1 ? 2 : 5];
    row.weak = s.prediction.points[p == 1 ? 0 : 4];
    row.speedup = s.prediction.points[2].t_total_s / row.best.t_total_s;
    s.prediction.scaling.push_back(row);
  }
  s.prediction.overall_best = s.prediction.knee = s.prediction.points[5];
  r.systems.push_back(s);
  const std::string html = report_html(r);
  EXPECT_EQ(html.find("chip<x>"), std::string::npos);
  EXPECT_EQ(html.find("<b>study</b>"), std::string::npos);
  EXPECT_NE(html.find("chip&lt;x&gt;"), std::string::npos);
  EXPECT_NE(html.find("net &amp; &quot;co&quot;"), std::string::npos);
  EXPECT_NE(html.find("hw/a&amp;b.yaml"), std::string::npos);
}

TEST(HtmlReport, ReportsNameFilesAsTheStudyDoesNeverAbsolutely) {
  const std::string md = report_markdown(quickstart()), html = report_html(quickstart());
  EXPECT_EQ(md.find(kSrc), std::string::npos);
  EXPECT_EQ(html.find(kSrc), std::string::npos);
  EXPECT_NE(md.find("(`../hw_configs/t4_cluster.yaml`)"), std::string::npos);  // studies/quickstart.yaml's own path
  // One unit per quantity: total times in s and energies in J, the glanceable form beside them.
  EXPECT_EQ(total_seconds_text(6965), "6965 s (116.1 min)");
  EXPECT_EQ(total_seconds_text(23.42), "23.42 s");
  EXPECT_EQ(energy_text(6.464e7), "6.464e+07 J (18 kWh)");
  EXPECT_EQ(energy_text(102), "102 J");
}

TEST(HtmlReport, RankingSaysOnceWhatEveryDesignShares) {
  StudyResult r;
  r.workloads.push_back(WorkloadResult{"net", "wl.yaml", {100, 25600}, 0, {}});
  for (int i = 0; i < 2; ++i) {
    SystemResult s;
    s.index = static_cast<size_t>(i);
    s.name = "chip [rows=" + std::to_string(64 << i) + "]";
    s.hardware_name = "chip";
    s.overrides.push_back({"chip.compute.array.rows", std::to_string(64 << i)});
    s.cost_per_chip_hour_usd = 2;
    s.rank = i + 1;
    s.feasible = true;
    s.chosen = point(64, 1, 0.01 * (i + 1), r.workloads.front().law);
    s.prediction.overall_best = s.prediction.knee = s.chosen;
    r.systems.push_back(s);
  }
  const std::string h = ranked_table(r);
  // The hardware, knee and price columns are the same in both rows: one line above the table.
  EXPECT_NE(h.find("The same for every design below: hardware: chip; knee (chips): none; "
                   "price (USD per chip-hour): 2."), std::string::npos) << h;
  EXPECT_EQ(h.find("<th>hardware</th>"), std::string::npos);
  EXPECT_EQ(h.find("<th>price"), std::string::npos);
  EXPECT_NE(h.find(">rows</th>"), std::string::npos);  // the swept key differs: it stays a column
  EXPECT_EQ(count(h, "<tr"), 3u);                       // header and two designs
  EXPECT_NE(h.find("<th>total time (s)</th>"), std::string::npos);
}

TEST(HtmlReport, WriteReportWritesTheHtmlAndXmllintAcceptsIt) {
  const std::string dir = ::testing::TempDir() + "qs-html";
  write_report(quickstart(), dir);
  std::ifstream in(dir + "/report.html");
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), report_html(quickstart()));
  if (std::system("command -v xmllint > /dev/null 2>&1") != 0) GTEST_SKIP() << "xmllint not installed";
  // As XML: the page must be well-formed (every tag closed, every & escaped).
  const std::string log = ::testing::TempDir() + "xmllint.txt";
  const int status = std::system(("xmllint --noout " + dir + "/report.html > " + log + " 2>&1").c_str());
  std::ifstream errs(log);
  std::stringstream es;
  es << errs.rdbuf();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << es.str();
}

}  // namespace kp
