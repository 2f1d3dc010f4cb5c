// Text layout of the report's plots on hand-made data that overlapped before the layout pass:
// two knee labels at nearby points, a log axis over 5e-05 .. 0.01 in a narrow plot (crowded ticks
// and a bottom-left corner where an x tick met a y tick), two close point labels, and more labels
// than there is room for. Each case checks the estimated text boxes pairwise and against the plot.
#include <gtest/gtest.h>

#include <cmath>

#include "tools/report/label_placer.h"
#include "tools/report/svg_plot.h"
#include "tools/report/text_box.h"
#include "tests/tools/text_count.h"

namespace kp {
namespace {

// No two boxes share any area, and every box lies inside the w x h plot.
void expect_clear(const std::vector<Box>& boxes, double w, double h) {
  for (size_t i = 0; i < boxes.size(); ++i) {
    const Box& a = boxes[i];
    EXPECT_TRUE(a.inside({0, 0, w, h})) << "box " << i << " at " << a.left << "," << a.top << " .. " << a.right << "," << a.bottom;
    for (size_t j = i + 1; j < boxes.size(); ++j)
      EXPECT_FALSE(a.intersects(boxes[j])) << "boxes " << i << " and " << j << ": " << a.left << "," << a.top << " .. "
                                           << a.right << "," << a.bottom << " and " << boxes[j].left << "," << boxes[j].top
                                           << " .. " << boxes[j].right << "," << boxes[j].bottom;
  }
}

}  // namespace

TEST(PlotLabels, TextBoxesFollowDejaVuSansMetrics) {
  // "10" in DejaVu Sans Book: two digits of 1303/2048 em; at 11 px plus 5% = 14.697 px.
  EXPECT_NEAR(text_width_px("10", 11), 2 * 1303.0 / 2048 * 11 * 1.05, 1e-9);
  // Bold digits are 1425/2048 em.
  EXPECT_NEAR(text_width_px("10", 11, true), 2 * 1425.0 / 2048 * 11 * 1.05, 1e-9);
  // An ellipsis (3 UTF-8 bytes) counts one em.
  EXPECT_NEAR(text_width_px("\u2026", 10), 10 * 1.05, 1e-9);
  // Ascent 0.93 em, descent 0.24 em, half a pixel each side; "end" puts the text left of x.
  const Box b = text_box("10", 100, 50, Anchor::end, 11);
  EXPECT_NEAR(b.right, 100.5, 1e-9);
  EXPECT_NEAR(b.left, 100 - 14.6967 - 0.5, 1e-3);
  EXPECT_NEAR(b.top, 50 - 10.23 - 0.5, 1e-9);
  EXPECT_NEAR(b.bottom, 50 + 2.64 + 0.5, 1e-9);
}

TEST(PlotLabels, TickTextsOfOneAxisShareOneNotation) {
  EXPECT_EQ(tick_texts({5e-05, 1e-04, 1e-03, 1e-02}), (std::vector<std::string>{"5e-05", "1e-04", "1e-03", "1e-02"}));
  EXPECT_EQ(tick_texts({1, 10, 100, 0.5}), (std::vector<std::string>{"1", "10", "100", "0.5"}));
  EXPECT_EQ(tick_texts({0, 2.5e6}), (std::vector<std::string>{"0", "2.5e+06"}));
}

TEST(PlotLabels, ThinningKeepsEveryKthTickFromTheLast) {
  // Five 20 px boxes 15 px apart: neighbours overlap, every 2nd (0, 2, 4) are 10 px apart.
  std::vector<Box> boxes;
  for (int i = 0; i < 5; ++i) boxes.push_back({15.0 * i, 0, 15.0 * i + 20, 10});
  EXPECT_EQ(thin_ticks(boxes), (std::vector<size_t>{0, 2, 4}));
  // Four of them: every 2nd from the last keeps 1 and 3.
  boxes.pop_back();
  EXPECT_EQ(thin_ticks(boxes), (std::vector<size_t>{1, 3}));
  EXPECT_EQ(thin_ticks({{0, 0, 10, 10}, {20, 0, 30, 10}}), (std::vector<size_t>{0, 1}));
}

TEST(PlotLabels, PlacerTakesTheFirstFreeCandidateInsideTheFrame) {
  LabelPlacer placer({0, 0, 100, 100});
  placer.reserve({10, 10, 50, 20});
  EXPECT_EQ(placer.place({{20, 15, 60, 25}, {-5, 30, 20, 40}, {20, 30, 60, 40}}), 2);  // overlap, outside, free
  EXPECT_EQ(placer.place({{30, 35, 70, 45}}), -1);                                   // on the label just placed
  EXPECT_TRUE(placer.fits({60, 60, 90, 70}));
}

// Two designs' knees at 4 and 8 chips on a speed-up plot, both labelled on row 0 (the old layout
// put each text 8 px above its point: the points are 73 px apart and 4 px apart in height, and the
// 78 px wide "knee 4 chips" ran into "knee 8 chips").
TEST(PlotLabels, NearbyKneeLabelsArePlacedApartAndEqualOnesMerged) {
  SvgPlot p("speed-up", 760, 340);
  p.legend_outside();
  p.x_axis("chips P (chips)", 1, 64, true);
  p.y_axis("speed-up (x)", 1, 64, true);
  p.polyline({{1, 1}, {4, 3.4}, {8, 3.6}}, "#1f77b4", "design a");
  p.annotate({4, 3.4}, "#1f77b4", "knee 4 chips");
  p.annotate({8, 3.6}, "#d62728", "knee 8 chips");
  p.annotate({8, 3.6}, "#2ca02c", "knee 8 chips");  // a third design with the same knee
  const std::string svg = p.str();
  EXPECT_EQ(count(svg, ">knee 4 chips</text>"), 1u);
  EXPECT_EQ(count(svg, ">knee 8 chips</text>"), 1u);
  EXPECT_EQ(count(svg, "r=\"7\" fill=\"none\""), 3u);  // every knee keeps its ring
  expect_clear(p.text_boxes(), 760, 340);
}

// A log axis over 5e-05 .. 0.01 ticks at 1, 2, 5 per decade: in a 312 px plot those texts touch,
// and the first x tick (5e-05 at the frame's left) met the last y tick (0.01 was below the frame's
// bottom-left corner in the old text notation).
TEST(PlotLabels, CrowdedLogTicksAreThinnedAndClearTheCorner) {
  SvgPlot p("a wide log range", 312, 270);
  p.x_axis("x (s)", 5e-05, 0.01, true);
  p.y_axis("y (s)", 5e-05, 0.01, true);
  p.markers({{1e-4, 1e-4}, {1e-3, 5e-3}}, "#1f77b4", "");
  const std::string svg = p.str();
  const std::vector<Box> boxes = p.text_boxes();
  expect_clear(boxes, 312, 270);
  EXPECT_EQ(svg.find(">0.01<"), std::string::npos);  // one notation on each axis
  EXPECT_GE(count(svg, "e-0"), 4u);                   // at least two ticks kept per axis
}

// Two design points 6 px apart, each named (the Pareto plot's case): the second name moves.
TEST(PlotLabels, ClosePointLabelsDoNotOverlap) {
  SvgPlot p("pareto", 560, 340);
  p.x_axis("time (s)", 1, 100, true);
  p.y_axis("cost (USD)", 1, 100, true);
  p.legend_point("#d62728", "Pareto-optimal");
  p.annotate({10, 10}, "#333", "tpu-v3-build (128, 128)");
  p.annotate({10.5, 10.3}, "#333", "tpu-v3-build (192, 192)");
  const std::string svg = p.str();
  EXPECT_EQ(count(svg, ">tpu-v3-build (128, 128)</text>"), 1u);
  EXPECT_EQ(count(svg, ">tpu-v3-build (192, 192)</text>"), 1u);
  expect_clear(p.text_boxes(), 560, 340);
}

// Twenty long labels on one point cannot all fit: the ones left over become hover titles (and,
// with the legend outside, legend rows while there is room), never texts on top of each other.
TEST(PlotLabels, LabelsWithoutRoomFallBackToTitleAndLegend) {
  SvgPlot p("crowded", 560, 340);
  p.legend_outside();
  p.x_axis("x", 1, 10, true);
  p.y_axis("y", 1, 10, true);
  for (int i = 0; i < 20; ++i) p.annotate({3, 3}, "#333", "a rather long label number " + std::to_string(i));
  const std::string svg = p.str();
  size_t drawn = 0, titled = 0;
  for (int i = 0; i < 20; ++i) {
    const std::string t = "a rather long label number " + std::to_string(i);
    drawn += count(svg, ">" + t + "</text>");
    titled += count(svg, "<title>" + t + "</title>");
  }
  EXPECT_GT(titled, 0u);
  EXPECT_EQ(drawn - count(svg, "r=\"5\" fill=\"none\""), 20 - titled);  // legend rows are drawn texts too
  expect_clear(p.text_boxes(), 560, 340);
}

}  // namespace kp
