#pragma once
// A small inline-SVG chart: two axes (linear or log), ticks, grid, polylines, markers, data-space
// rectangles, reference lines and a legend. Contract: output is deterministic (fixed number
// formats, insertion order); every text is escaped; no text overlaps another (str() lays them out:
// tick texts are thinned, labels are moved to a free spot near their mark, or, where none is free,
// left to the mark's hover title and, with the legend outside, a legend entry); points that a log axis cannot show (<= 0) or
// that are not finite are dropped rather than drawn at a wrong place; an axis label carries its
// unit, e.g. "global batch M (samples)".
#include <string>
#include <utility>
#include <vector>

#include "tools/report/axis_ticks.h"
#include "tools/report/text_box.h"

namespace kp {

class LabelPlacer;

// &, <, >, " and ' as entities: safe in HTML text and in attribute values.
std::string html_escape(const std::string& s);

struct XY {
  double x = 0, y = 0;
};

class SvgPlot {
 public:
  SvgPlot(std::string title, int width_px = 560, int height_px = 340);

  // The data range [lo, hi] of an axis; lo == hi is widened so the plot never divides by zero.
  void x_axis(std::string label, double lo, double hi, bool log);
  void y_axis(std::string label, double lo, double hi, bool log);
  // Ticks at these data values instead of the automatic 1-2-5 / decade ticks (e.g. the powers of
  // two of a chip grid); values outside the axis range are skipped. The y axis's tick texts widen
  // the left margin when they need it: call y_axis()/y_ticks() before placing anything.
  void x_ticks(std::vector<double> values);
  void y_ticks(std::vector<double> values);

  void polyline(const std::vector<XY>& pts, const std::string& color, const std::string& legend,
                bool dashed = false);
  // Filled circles (or squares with `square`), each with a hover title giving its coordinates.
  void markers(const std::vector<XY>& pts, const std::string& color, const std::string& legend,
               double radius_px = 3.5, bool square = false);
  // One filled circle with its own hover title (e.g. a design point's name and numbers).
  void point(XY at, const std::string& color, double radius_px, const std::string& title);
  // A filled band between lower and upper curves sampled at the same x (e.g. a confidence band).
  void band(const std::vector<XY>& lower, const std::vector<XY>& upper, const std::string& fill,
            const std::string& legend);
  // A rectangle in data coordinates, e.g. a heat-map cell or a stacked-bar segment.
  void rect(double x0, double x1, double y0, double y1, const std::string& fill, const std::string& title);
  // Full-height (vertical) or full-width (horizontal) reference line with a label at its end (or
  // the nearest free spot along the line).
  void vline(double x, const std::string& color, const std::string& label);
  void hline(double y, const std::string& color, const std::string& label);
  // A labelled point: marker ring plus text beside it, on a halo of `halo` so it stays readable
  // over lines and heat-map cells. The text goes above the point, `row` rows of 13 px up if free,
  // else to the nearest free spot around it; a second label with the same text at the same spot
  // (two designs' knees at one point) is merged into the first.
  void annotate(XY at, const std::string& color, const std::string& label, int row = 0,
                const std::string& halo = "#fff");
  // A legend entry drawn as a filled swatch (for bars and areas).
  void legend_swatch(const std::string& color, const std::string& legend);
  // A legend entry drawn as a dot (for scattered points).
  void legend_point(const std::string& color, const std::string& legend);

  // A vertical colour bar under the outside legend (legend_outside() first): `colours` evenly
  // spaced from lo (bottom) to hi (top), ticks at `ticks`, on a log scale if `log`.
  void colour_bar(const std::vector<std::string>& colours, double lo, double hi, bool log,
                  const std::vector<double>& ticks, const std::string& label);

  // Puts the legend in a column right of the frame instead of over the data's top-right corner.
  void legend_outside();
  // Puts the legend over the frame's top-left corner (for data that rises to the right).
  void legend_top_left();

  std::string str() const;
  // The estimated box of every text str() draws (ticks, title, axis labels, legend, labels), for
  // tests: no two intersect.
  std::vector<Box> text_boxes() const;

  // Data → pixel; exposed for tests and for callers placing extra shapes.
  double px(double x) const;
  double py(double y) const;

 private:
  struct Axis {
    std::string label;
    double lo = 1, hi = 10;
    bool log = false;
    std::vector<double> fixed_ticks;
  };
  struct LegendEntry {
    std::string color, text;
    bool swatch = false, dashed = false, dot = false, ring = false;
  };
  // A label waiting for str(): its mark (an element's opening tag, closed with a hover title when
  // the label finds no spot), the spots to try, best first, and its style.
  struct Spot {
    double x, baseline_y;
    Anchor anchor;
  };
  struct PendingLabel {
    std::string mark_open, mark_tag;
    Box mark_box;
    bool ring = false;
    std::vector<Spot> spots;
    std::string color, text, halo;
  };
  struct Layout {
    std::string axes, labels, legend;
    std::vector<Box> text_boxes;
  };
  static double frac(const Axis& a, double v);
  static std::vector<double> ticks(const Axis& a);
  bool visible(XY p) const;
  Box frame() const;
  void fit_left_margin();
  Layout layout() const;
  void lay_out_ticks(LabelPlacer& placer, Layout& out) const;
  void lay_out_labels(LabelPlacer& placer, std::vector<LegendEntry>& legend, Layout& out) const;
  std::string legend_svg(const std::vector<LegendEntry>& legend, std::vector<Box>* boxes) const;

  std::string m_title;
  int m_width, m_height;
  double m_left = 72, m_right = 16, m_top = 30, m_bottom = 48;
  bool m_legend_outside = false, m_legend_left = false;
  Axis m_x, m_y;
  std::string m_body, m_overlay;
  std::vector<LegendEntry> m_legend;
  std::vector<PendingLabel> m_labels;
  std::vector<Box> m_reserved;  // texts drawn at once (the colour bar's)
};

}  // namespace kp
