// The report's plot helpers on hand-computed cases: tick sets, energy text, the 2-D Pareto front
// and what the Pareto plot draws.
#include <gtest/gtest.h>

#include "tools/report/pareto_plot.h"
#include "tools/report/plot_util.h"
#include "tools/report/report_writer.h"
#include "tools/report/svg_plot.h"

namespace kp {
namespace {

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

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
  EXPECT_EQ(count(svg, "fill=\"#9aa7b8\" stroke=\"#fff\""), 3u);  // b, d, e; f has no cost and is left out
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
