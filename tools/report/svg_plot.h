#pragma once
// A small inline-SVG chart: two axes (linear or log), ticks, grid, polylines, markers, data-space
// rectangles, reference lines and a legend. Contract: output is deterministic (fixed number
// formats, insertion order); every text is escaped; points that a log axis cannot show (<= 0) or
// that are not finite are dropped rather than drawn at a wrong place; an axis label carries its
// unit, e.g. "global batch M (samples)".
#include <string>
#include <utility>
#include <vector>

namespace kp {

// &, <, >, " and ' as entities: safe in HTML text and in attribute values.
std::string html_escape(const std::string& s);

// "%.3g" without exponent noise for the numbers a reader meets on a tick: 16, 4096, 0.25, 1e+06.
std::string tick_text(double v);

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
  // Full-height (vertical) or full-width (horizontal) reference line with a label at its end.
  void vline(double x, const std::string& color, const std::string& label);
  void hline(double y, const std::string& color, const std::string& label);
  // A labelled point: marker ring plus text beside it, on a halo of `halo` so it stays readable
  // over lines and heat-map cells.
  // `row` lifts the text by rows of 13 px so labels of neighbouring points do not overlap.
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
    bool swatch = false, dashed = false, dot = false;
  };
  static double frac(const Axis& a, double v);
  static std::vector<double> ticks(const Axis& a);
  bool visible(XY p) const;
  void fit_left_margin();
  std::string axes_svg() const;
  std::string legend_svg() const;

  std::string m_title;
  int m_width, m_height;
  double m_left = 72, m_right = 16, m_top = 30, m_bottom = 48;
  bool m_legend_outside = false, m_legend_left = false;
  Axis m_x, m_y;
  std::string m_body, m_overlay;
  std::vector<LegendEntry> m_legend;
};

}  // namespace kp
