// The report's plot helpers on hand-computed cases: tick sets, energy text, the 2-D Pareto front
// and what the Pareto plot draws.
#include <gtest/gtest.h>

#include <algorithm>

#include "tools/report/html_plots.h"
#include "tools/report/html_report.h"
#include "tools/report/pareto_plot.h"
#include "tools/report/plot_util.h"
#include "tools/report/report_writer.h"
#include "tools/report/svg_plot.h"
#include "tests/tools/text_count.h"

namespace kp {
namespace {

}  // namespace

TEST(PlotUtil, PowerOfTwoTicksThinFromTheTop) {
  EXPECT_EQ(pow2_ticks(1, 1024, 11), (std::vector<double>{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}));
  // 16 .. 65536 is 13 powers of two: every 2nd from the top leaves 7.
  EXPECT_EQ(pow2_ticks(16, 65536, 7), (std::vector<double>{16, 64, 256, 1024, 4096, 16384, 65536}));
  // 16 .. 65536 with at most 4 ticks: every 4th from the top.
  EXPECT_EQ(pow2_ticks(16, 65536, 4), (std::vector<double>{16, 256, 4096, 65536}));
  EXPECT_TRUE(pow2_ticks(3, 5, 10).empty());  // one power of two: the automatic ticks are better
}

TEST(PlotUtil, EnergyAndChipsReadAsPeopleSayThem) {
  EXPECT_EQ(human_joules(153), "153 J");
  EXPECT_EQ(human_joules(4300), "4.3 kJ");
  EXPECT_EQ(human_joules(2.1 * 3.6e6), "2.1 kWh");
  EXPECT_EQ(human_joules(12 * 3.6e9), "12 MWh");
  EXPECT_EQ(chips_text(1), "1 chip");
  EXPECT_EQ(chips_text(64), "64 chips");
}

TEST(ParetoPlot, FrontIn2dKeepsOnlyUndominatedDesigns) {
  // (time s, cost USD): b is beaten by a on both, d by c; a, c, e trade time against cost.
  const std::vector<DesignMark> d = {
      {"a", 10, 5, 1, true}, {"b", 12, 6, 1, false}, {"c", 20, 2, 1, true}, {"d", 25, 3, 1, false}, {"e", 5, 9, 1, false}};
  EXPECT_EQ(front_2d(d, ParetoCost::usd), (std::vector<size_t>{4, 0, 2}));
  // On energy every design ties at 1 J, so only the fastest is undominated.
  EXPECT_EQ(front_2d(d, ParetoCost::joules), (std::vector<size_t>{4}));
}

TEST(ParetoPlot, DrawsEveryDesignAndHighlightsTheStudysFlags) {
  const std::vector<DesignMark> d = {{"a", 10, 5, 100, true},  {"b", 12, 6, 200, false}, {"c", 20, 2, 50, true},
                                     {"d", 25, 3, 80, false},  {"e<x>", 5, 900, 10, false}, {"f", 7, 0, 0, false}};
  const std::string svg = plot_pareto(d, ParetoCost::usd);
  EXPECT_EQ(count(svg, "fill=\"#d62728\" stroke=\"#fff\""), 2u);  // a and c, flagged by the study
  EXPECT_EQ(count(svg, "fill=\"#5b84c4\" stroke=\"#fff\""), 3u);  // b, d, e; f has no cost and is left out
  EXPECT_NE(svg.find("1 without a cost left out"), std::string::npos);
  EXPECT_NE(svg.find("e&lt;x&gt;"), std::string::npos);
  EXPECT_EQ(svg.find("e<x>"), std::string::npos);
  // Cost spans 2 .. 900 USD, more than a decade: log axis; time 5 .. 25 s: linear.
  EXPECT_NE(svg.find("cost per training run (USD), log scale"), std::string::npos);
  EXPECT_NE(svg.find(">total time to target (s)<"), std::string::npos);
  // Staircase through e (5 s, 900), a (10 s, 5), c (20 s, 2): 5 vertices.
  const size_t at = svg.find("<polyline");
  ASSERT_NE(at, std::string::npos);
  const std::string pts = svg.substr(at, svg.find("/>", at) - at);
  EXPECT_EQ(count(pts, ","), 5u);
}

}  // namespace kp

// A two-design sweep built by hand: the report must show the swept values, the Pareto section,
// the SystemC check and the same numbers in designs.csv and summary.json.
namespace kp {
namespace {

StudyResult two_design_sweep() {
  StudyResult r;
  r.spec.name = "sweep";
  r.spec.batches = {32, 64};
  r.spec.learners = {1, 2};
  r.spec.objectives = {Objective::Time, Objective::Cost};
  r.workloads.push_back(WorkloadResult{"net", "wl.yaml", {100, 6400}, 1000, {}});
  for (size_t d = 0; d < 2; ++d) {
    SystemResult s;
    s.index = d;
    s.file = "hw.yaml";
    s.hardware_name = "chip";
    s.overrides = {{"interconnect.link.bandwidth", d == 0 ? "50 GB/s" : "100 GB/s"}};
    s.name = std::string("chip [bandwidth=") + (d == 0 ? "50 GB/s]" : "100 GB/s]");
    s.fidelity = "analytic";
    for (int64_t p : {1, 2})
      for (int64_t m : {32, 64}) {
        TimePoint t;
        t.batch = m;
        t.learners = p;
        t.per_learner_batch = m / p;
        t.steps = r.workloads[0].law.steps(static_cast<double>(m));
        t.t_update_s = (d == 0 ? 0.02 : 0.01) * m / 32 / p;
        t.t_total_s = t.steps * t.t_update_s;
        t.energy_j = 100 * t.t_total_s;
        t.cost_usd = (d == 0 ? 1 : 3) * t.t_total_s * p;
        t.breakdown = {t.t_update_s / 2, t.t_update_s / 2, 0, 0, 0, t.t_update_s};
        s.prediction.points.push_back(t);
      }
    for (int64_t p : {1, 2}) {
      ScalingRow row;
      row.learners = p;
      row.best = row.weak = s.prediction.points[p == 1 ? 1 : 3];
      row.speedup = s.prediction.points[1].t_total_s / row.best.t_total_s;
      s.prediction.scaling.push_back(row);
    }
    s.prediction.overall_best = s.prediction.knee = s.prediction.points[3];
    s.feasible = true;
    s.chosen = s.prediction.points[3];
    s.pareto = true;  // faster but dearer vs slower but cheaper
    s.rank = d == 0 ? 2 : 1;
    if (d == 1) {
      s.verify.done = true;
      s.verify.systemc = s.chosen;
      s.verify.systemc.t_update_s = s.chosen.t_update_s * 1.05;
      s.verify.t_update_rel_diff = 0.05;
    }
    r.systems.push_back(s);
  }
  return r;
}

}  // namespace

TEST(ReportSweep, HtmlShowsSweptValuesParetoAndSystemcCheck) {
  const StudyResult r = two_design_sweep();
  const std::string html = report_html(r);
  EXPECT_NE(html.find("<th title=\"interconnect.link.bandwidth\">bandwidth</th>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"n\">100 GB/s</td>"), std::string::npos);
  EXPECT_NE(html.find("id=\"pareto\""), std::string::npos);
  EXPECT_NE(html.find("+5.0%"), std::string::npos);  // the SystemC check of the verified design
  // Rank 1 (the 100 GB/s design) is the lede and the first row of the ranking.
  const size_t lede = html.find("class=\"lede\"");
  ASSERT_NE(lede, std::string::npos);
  EXPECT_NE(html.substr(lede, 200).find("chip [bandwidth=100 GB/s]"), std::string::npos);
  const size_t ranking = html.find("id=\"ranking\"");
  EXPECT_LT(html.find(">100 GB/s<", ranking), html.find(">50 GB/s<", ranking));
}

TEST(ReportSweep, DesignsCsvAndSummaryCarryTheSameNumbers) {
  const StudyResult r = two_design_sweep();
  const std::string csv = designs_csv(r);
  const std::string header = csv.substr(0, csv.find('\n'));
  // The swept key is a number with its unit in the column name.
  EXPECT_EQ(header.rfind("design_index,design,workload,hardware_file,interconnect.link.bandwidth_GBps,feasible,rank,pareto,"
                         "batch,learners,steps,t_update_s,t_total_s,energy_j,cost_usd", 0), 0u);
  // Rank 1 first: design 1, 100 GB/s, M = 64 on 2 chips; steps 100 + 6400/64 = 200; T_update
  // 0.01 * 2 / 2 = 0.01 s; total 2 s; energy 200 J; cost 3 * 2 * 2 = 12 USD; SystemC 0.0105 s.
  const std::string row = csv.substr(header.size() + 1, csv.find('\n', header.size() + 1) - header.size() - 1);
  // No knee is an empty cell; power, TDP, area and price are empty where the file models none;
  // runs per MWh = 3.6e9 J / 200 J, runs per k$ = 1000 / 12; perf/W = 200 steps x 64 samples /
  // 200 J = 64 samples/J, perf/$ = 12800 / 12 USD; on the time-cost-energy front (the other design
  // takes 4 s, 400 J, 8 USD: cheaper, so neither beats the other).
  EXPECT_EQ(row, "1,chip [bandwidth=100 GB/s],net,hw.yaml,100,1,1,1,64,2,200,0.01,2,200,12,,0,0,0,analytic,0.0105,"
                 "0.05,0,,1,,,18000000,83.3333333,64,1066.66667,1");
  const std::string json = summary_json(r);
  EXPECT_NE(json.find("\"interconnect.link.bandwidth\":\"100 GB/s\""), std::string::npos);
  EXPECT_NE(json.find("\"pareto\":true"), std::string::npos);
  EXPECT_NE(json.find("\"rel_diff_t_update\":0.05"), std::string::npos);
  const std::string points = points_csv(r);
  EXPECT_EQ(std::count(points.begin(), points.end(), '\n'), 1 + 8);
  EXPECT_NE(points.find(",0,net,50\n"), std::string::npos);
  EXPECT_NE(points.find(",workload,interconnect.link.bandwidth_GBps\n"), std::string::npos);
  const std::string md = report_markdown(r);
  EXPECT_LT(md.find("## Answer"), md.find("## Best batch"));
  EXPECT_NE(md.find("| 1 | chip [bandwidth=100 GB/s] | net | 2 | 2 | 64 | 200 | 12 | 64 | 1067 | none | yes | yes | +5.0% |"),
            std::string::npos);
}

}  // namespace kp

namespace kp {

TEST(ReportStepCurve, DrawsTheMeasuredPointsAndTheBandWhenTheCurveHasThem) {
  WorkloadResult w{"net", "wl.yaml", {100, 6400}, 1000, {}};
  const std::string plain = plot_step_curve(w, {16, 64, 256});
  EXPECT_EQ(plain.find("<polygon"), std::string::npos);
  w.band.measured = {{16, 520}, {64, 190}, {256, 126}};
  w.band.measured_lo = {480, 180, 120};
  w.band.measured_hi = {540, 210, 130};
  w.band.batch = {16, 64, 256};
  w.band.lo = {470, 190, 120};
  w.band.hi = {530, 210, 130};
  w.band.confidence = 0.95;
  w.band.method = "trials";
  const std::string svg = plot_step_curve(w, {16, 64, 256});
  EXPECT_EQ(count(svg, "<polygon"), 1u);
  EXPECT_NE(svg.find("95% bootstrap band (trials)"), std::string::npos);
  EXPECT_EQ(count(svg, "fill=\"#222\">"), 3u);  // the three measured points as squares
  const std::string md = report_markdown(StudyResult{{}, {w}, {}});
  EXPECT_NE(md.find("| 64 | 190 | 200 | 180 | 210 |"), std::string::npos);  // N(64) = 100 + 6400/64
}

}  // namespace kp
