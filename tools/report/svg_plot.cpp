#include "tools/report/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/number_format.h"
#include "tools/report/label_placer.h"
#include "tools/report/plot_util.h"

namespace kp {
namespace {

std::string num(double v) { return format_double(v, "%.1f"); }

std::string dash_attr(bool dashed) { return dashed ? " stroke-dasharray=\"6 4\"" : ""; }

}  // namespace

std::string html_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

SvgPlot::SvgPlot(std::string title, int width_px, int height_px)
    : m_title(std::move(title)), m_width(width_px), m_height(height_px) {}

void SvgPlot::x_axis(std::string label, double lo, double hi, bool log) {
  m_x = {std::move(label), lo, hi, log, {}};
  if (!(m_x.hi > m_x.lo)) m_x.hi = m_x.lo == 0 ? 1 : m_x.lo * (log ? 10 : 1.5);
}

void SvgPlot::y_axis(std::string label, double lo, double hi, bool log) {
  m_y = {std::move(label), lo, hi, log, {}};
  if (!(m_y.hi > m_y.lo)) m_y.hi = m_y.lo == 0 ? 1 : m_y.lo * (log ? 10 : 1.5);
  fit_left_margin();
}

// Room left of the frame for the widest y tick text (4 px from the frame) and the rotated axis
// label (24 px from the plot's edge).
void SvgPlot::fit_left_margin() {
  double widest = 0;
  for (const std::string& t : tick_texts(ticks(m_y))) widest = std::max(widest, text_width_px(t, 11));
  m_left = std::max(72.0, 28.0 + widest);
}

void SvgPlot::x_ticks(std::vector<double> values) { m_x.fixed_ticks = std::move(values); }
void SvgPlot::y_ticks(std::vector<double> values) { m_y.fixed_ticks = std::move(values), fit_left_margin(); }

double SvgPlot::frac(const Axis& a, double v) {
  if (a.log) return (std::log10(v) - std::log10(a.lo)) / (std::log10(a.hi) - std::log10(a.lo));
  return (v - a.lo) / (a.hi - a.lo);
}

double SvgPlot::px(double x) const { return m_left + frac(m_x, x) * (m_width - m_left - m_right); }
double SvgPlot::py(double y) const { return m_height - m_bottom - frac(m_y, y) * (m_height - m_top - m_bottom); }

bool SvgPlot::visible(XY p) const {
  if (!std::isfinite(p.x) || !std::isfinite(p.y)) return false;
  if ((m_x.log && p.x <= 0) || (m_y.log && p.y <= 0)) return false;
  return true;
}

Box SvgPlot::frame() const { return {m_left, m_top, m_width - m_right, m_height - m_bottom}; }

// Fixed ticks within the range, else the automatic ones.
std::vector<double> SvgPlot::ticks(const Axis& a) {
  if (a.fixed_ticks.empty()) return auto_ticks(a.lo, a.hi, a.log);
  std::vector<double> t;
  const double eps = 1e-9;
  for (double v : a.fixed_ticks)
    if (v >= a.lo * (1 - eps) && v <= a.hi * (1 + eps) && (!a.log || v > 0)) t.push_back(v);
  return t;
}

void SvgPlot::polyline(const std::vector<XY>& pts, const std::string& color, const std::string& legend,
                       bool dashed) {
  std::string coords;
  for (XY p : pts)
    if (visible(p)) coords += (coords.empty() ? "" : " ") + num(px(p.x)) + "," + num(py(p.y));
  if (coords.empty()) return;
  m_body += "<polyline fill=\"none\" stroke=\"" + color + "\" stroke-width=\"2\"" + dash_attr(dashed) +
            " points=\"" + coords + "\"/>\n";
  if (!legend.empty()) m_legend.push_back({color, legend, false, dashed});
}

void SvgPlot::markers(const std::vector<XY>& pts, const std::string& color, const std::string& legend,
                      double radius_px, bool square) {
  for (XY p : pts) {
    if (!visible(p)) continue;
    const std::string tip = "<title>" + html_escape(tick_text(p.x) + ", " + tick_text(p.y)) + "</title>";
    if (square)
      m_body += "<rect x=\"" + num(px(p.x) - radius_px) + "\" y=\"" + num(py(p.y) - radius_px) + "\" width=\"" +
                num(2 * radius_px) + "\" height=\"" + num(2 * radius_px) + "\" fill=\"" + color + "\">" + tip +
                "</rect>\n";
    else
      m_body += "<circle cx=\"" + num(px(p.x)) + "\" cy=\"" + num(py(p.y)) + "\" r=\"" + num(radius_px) +
                "\" fill=\"" + color + "\">" + tip + "</circle>\n";
  }
  if (!legend.empty()) m_legend.push_back({color, legend, true, false});
}

void SvgPlot::point(XY at, const std::string& color, double radius_px, const std::string& title) {
  if (!visible(at)) return;
  m_body += "<circle cx=\"" + num(px(at.x)) + "\" cy=\"" + num(py(at.y)) + "\" r=\"" + num(radius_px) + "\" fill=\"" +
            color + "\" stroke=\"#fff\" stroke-width=\"0.8\"><title>" + html_escape(title) + "</title></circle>\n";
}

void SvgPlot::band(const std::vector<XY>& lower, const std::vector<XY>& upper, const std::string& fill,
                   const std::string& legend) {
  std::string coords;
  for (XY p : lower)
    if (visible(p)) coords += (coords.empty() ? "" : " ") + num(px(p.x)) + "," + num(py(p.y));
  for (auto it = upper.rbegin(); it != upper.rend(); ++it)
    if (visible(*it)) coords += (coords.empty() ? "" : " ") + num(px(it->x)) + "," + num(py(it->y));
  if (coords.empty()) return;
  m_body += "<polygon fill=\"" + fill + "\" fill-opacity=\"0.25\" stroke=\"none\" points=\"" + coords + "\"/>\n";
  if (!legend.empty()) m_legend.push_back({fill, legend, true, false});
}

void SvgPlot::rect(double x0, double x1, double y0, double y1, const std::string& fill, const std::string& title) {
  if (!visible({x0, y0}) || !visible({x1, y1})) return;
  const double l = std::min(px(x0), px(x1)), r = std::max(px(x0), px(x1));
  const double t = std::min(py(y0), py(y1)), b = std::max(py(y0), py(y1));
  m_body += "<rect x=\"" + num(l) + "\" y=\"" + num(t) + "\" width=\"" + num(r - l) + "\" height=\"" +
            num(b - t) + "\" fill=\"" + fill + "\"><title>" + html_escape(title) + "</title></rect>\n";
}

// The label sits at the line's foot, on the side away from the nearer edge, or higher up the line.
void SvgPlot::vline(double x, const std::string& color, const std::string& label) {
  if (!visible({x, m_y.hi})) return;
  const double X = px(x);
  PendingLabel l{"<line x1=\"" + num(X) + "\" y1=\"" + num(m_top) + "\" x2=\"" + num(X) + "\" y2=\"" +
                     num(m_height - m_bottom) + "\" stroke=\"" + color + "\" stroke-width=\"1.5\"" + dash_attr(true),
                 "line", {}, false, {}, color, label, ""};
  const bool right_half = X > (m_left + m_width - m_right) / 2;
  for (double y = m_height - m_bottom - 6; y > m_top + 12; y -= 13)
    for (bool left : {right_half, !right_half}) l.spots.push_back({left ? X - 4 : X + 4, y, left ? Anchor::end : Anchor::start});
  m_labels.push_back(std::move(l));
}

// The label sits above the line's right end, else below it, else at the left end, else further off.
void SvgPlot::hline(double y, const std::string& color, const std::string& label) {
  if (!visible({m_x.hi, y})) return;
  const double Y = py(y);
  PendingLabel l{"<line x1=\"" + num(m_left) + "\" y1=\"" + num(Y) + "\" x2=\"" + num(m_width - m_right) + "\" y2=\"" +
                     num(Y) + "\" stroke=\"" + color + "\" stroke-width=\"1.5\"" + dash_attr(true),
                 "line", {}, false, {}, color, label, ""};
  for (int k = 0; k < 4; ++k)
    for (bool right : {true, false})
      for (double baseline : {Y - 4 - 13.0 * k, Y + 13 + 13.0 * k})
        l.spots.push_back({right ? m_width - m_right - 4 : m_left + 4, baseline, right ? Anchor::end : Anchor::start});
  m_labels.push_back(std::move(l));
}

// Spots nearest first: above then below the point, on the side towards the plot's middle first,
// starting `row` rows up; then level with the point.
void SvgPlot::annotate(XY at, const std::string& color, const std::string& label, int row, const std::string& halo) {
  if (!visible(at)) return;
  const double X = px(at.x), Y = py(at.y);
  PendingLabel l{"<circle cx=\"" + num(X) + "\" cy=\"" + num(Y) + "\" r=\"7\" fill=\"none\" stroke=\"" + color +
                     "\" stroke-width=\"2\"",
                 "circle", {X - 8, Y - 8, X + 8, Y + 8}, true, {}, color, label, halo};
  const bool right_half = X > (m_left + m_width - m_right) / 2;
  std::vector<int> rows{std::max(0, row)};
  for (int k = 0; k < 6; ++k)
    if (k != rows.front()) rows.push_back(k);
  for (int k : rows)
    for (bool left : {right_half, !right_half})
      for (double baseline : {Y - 8 - 13.0 * k, Y + 18 + 13.0 * k})
        l.spots.push_back({left ? X - 10 : X + 10, baseline, left ? Anchor::end : Anchor::start});
  for (bool left : {right_half, !right_half}) l.spots.push_back({left ? X - 11 : X + 11, Y + 4, left ? Anchor::end : Anchor::start});
  m_labels.push_back(std::move(l));
}

void SvgPlot::legend_swatch(const std::string& color, const std::string& legend) {
  m_legend.push_back({color, legend, true, false});
}

void SvgPlot::colour_bar(const std::vector<std::string>& colours, double lo, double hi, bool log,
                         const std::vector<double>& ticks, const std::string& label) {
  if (colours.empty()) return;
  const double x = m_width - m_right + 16, top = m_top + 15.0 * static_cast<double>(m_legend.size()) + 40;
  const double bottom = m_height - m_bottom, h = (bottom - top) / static_cast<double>(colours.size());
  m_overlay += "<g class=\"colour-bar\"><text x=\"" + num(x) + "\" y=\"" + num(top - 8) + "\">" + html_escape(label) +
               "</text>\n";
  m_reserved.push_back(text_box(label, x, top - 8, Anchor::start, 11));
  for (size_t i = 0; i < colours.size(); ++i)
    m_overlay += "<rect x=\"" + num(x) + "\" y=\"" + num(bottom - h * static_cast<double>(i + 1)) +
                 "\" width=\"16\" height=\"" + num(h + 0.5) + "\" fill=\"" + colours[i] + "\"/>";
  m_overlay += "\n";
  const Axis a{"", lo, hi, log, {}};
  std::vector<double> shown;
  for (double v : ticks)
    if (v >= lo && v <= hi && (!log || v > 0)) shown.push_back(v);
  const std::vector<std::string> texts = tick_texts(shown);
  std::vector<Box> boxes;
  for (size_t i = 0; i < shown.size(); ++i)
    boxes.push_back(text_box(texts[i], x + 23, bottom - frac(a, shown[i]) * (bottom - top) + 4, Anchor::start, 11));
  for (size_t i : thin_ticks(boxes)) {
    const double Y = bottom - frac(a, shown[i]) * (bottom - top);
    m_overlay += "<line x1=\"" + num(x + 16) + "\" y1=\"" + num(Y) + "\" x2=\"" + num(x + 20) + "\" y2=\"" + num(Y) +
                 "\" stroke=\"#333\"/><text x=\"" + num(x + 23) + "\" y=\"" + num(Y + 4) + "\">" + html_escape(texts[i]) +
                 "</text>\n";
    m_reserved.push_back(boxes[i]);
  }
  m_overlay += "</g>\n";
}

void SvgPlot::legend_point(const std::string& color, const std::string& legend) {
  m_legend.push_back({color, legend, false, false, true});
}

void SvgPlot::legend_outside() {
  m_legend_outside = true;
  m_right = 250;
}

void SvgPlot::legend_top_left() { m_legend_left = true; }

}  // namespace kp
