#include "tools/report/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/number_format.h"
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

std::string tick_text(double v) {
  char buf[32];
  const double a = std::fabs(v);
  if (a != 0 && (a >= 1e6 || a < 1e-3)) {
    std::snprintf(buf, sizeof buf, "%.3g", v);
  } else if (a >= 1 && v == std::floor(v)) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.3g", v);
  }
  return buf;
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

// Room left of the frame for the widest y tick text ("1.71e+06": up to 7 px a character at 11 px).
void SvgPlot::fit_left_margin() {
  size_t widest = 0;
  for (double v : ticks(m_y)) widest = std::max(widest, tick_text(v).size());
  m_left = std::max(72.0, 28.0 + 7.0 * static_cast<double>(widest));
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

// Log axes tick at 1, 2, 5 x 10^k when they span under three decades and at powers of ten
// otherwise; linear axes at a 1-2-5 step giving about six ticks.
std::vector<double> SvgPlot::ticks(const Axis& a) {
  std::vector<double> t;
  const double eps = 1e-9;
  if (!a.fixed_ticks.empty()) {
    for (double v : a.fixed_ticks)
      if (v >= a.lo * (1 - eps) && v <= a.hi * (1 + eps) && (!a.log || v > 0)) t.push_back(v);
    return t;
  }
  if (a.log) {
    const double decades = std::log10(a.hi / a.lo);
    const int step = decades > 8 ? 2 : 1;
    const std::vector<double> mult = decades < 3 ? std::vector<double>{1, 2, 5} : std::vector<double>{1};
    for (int k = static_cast<int>(std::floor(std::log10(a.lo))); k <= std::ceil(std::log10(a.hi)); k += step)
      for (double m : mult) {
        const double v = m * std::pow(10.0, k);
        if (v >= a.lo * (1 - eps) && v <= a.hi * (1 + eps)) t.push_back(v);
      }
    return t;
  }
  const double raw = (a.hi - a.lo) / 6;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw) { step = m * mag; break; }
  for (double v = std::ceil(a.lo / step) * step; v <= a.hi + eps * step; v += step)
    t.push_back(std::fabs(v) < eps * step ? 0 : v);
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

void SvgPlot::vline(double x, const std::string& color, const std::string& label) {
  if (!visible({x, m_y.hi})) return;
  const double X = px(x);
  m_body += "<line x1=\"" + num(X) + "\" y1=\"" + num(m_top) + "\" x2=\"" + num(X) + "\" y2=\"" +
            num(m_height - m_bottom) + "\" stroke=\"" + color + "\" stroke-width=\"1.5\"" + dash_attr(true) + "/>\n";
  const bool right_half = X > (m_left + m_width - m_right) / 2;
  m_body += "<text x=\"" + num(right_half ? X - 4 : X + 4) + "\" y=\"" + num(m_height - m_bottom - 6) + "\" fill=\"" + color +
            "\" text-anchor=\"" + (right_half ? "end" : "start") + "\">" + html_escape(label) + "</text>\n";
}

void SvgPlot::hline(double y, const std::string& color, const std::string& label) {
  if (!visible({m_x.hi, y})) return;
  const double Y = py(y);
  m_body += "<line x1=\"" + num(m_left) + "\" y1=\"" + num(Y) + "\" x2=\"" + num(m_width - m_right) + "\" y2=\"" +
            num(Y) + "\" stroke=\"" + color + "\" stroke-width=\"1.5\"" + dash_attr(true) + "/>\n";
  m_body += "<text x=\"" + num(m_width - m_right - 4) + "\" y=\"" + num(Y - 4) + "\" fill=\"" + color +
            "\" text-anchor=\"end\">" + html_escape(label) + "</text>\n";
}

void SvgPlot::annotate(XY at, const std::string& color, const std::string& label, int row,
                       const std::string& halo) {
  if (!visible(at)) return;
  const double X = px(at.x), Y = py(at.y);
  m_body += "<circle cx=\"" + num(X) + "\" cy=\"" + num(Y) + "\" r=\"7\" fill=\"none\" stroke=\"" + color +
            "\" stroke-width=\"2\"/>\n";
  const bool right_half = X > (m_left + m_width - m_right) / 2;
  // Above the point, or below it when that would run into the frame's top edge.
  const double above = Y - 8 - 13.0 * row, text_y = above < m_top + 12 ? Y + 18 + 13.0 * row : above;
  m_body += "<text x=\"" + num(right_half ? X - 10 : X + 10) + "\" y=\"" + num(text_y) + "\" fill=\"" + color +
            "\" stroke=\"" + halo + "\" stroke-width=\"3\" paint-order=\"stroke\" font-weight=\"600\" text-anchor=\"" +
            (right_half ? "end" : "start") + "\">" + html_escape(label) + "</text>\n";
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
  for (size_t i = 0; i < colours.size(); ++i)
    m_overlay += "<rect x=\"" + num(x) + "\" y=\"" + num(bottom - h * static_cast<double>(i + 1)) +
                 "\" width=\"16\" height=\"" + num(h + 0.5) + "\" fill=\"" + colours[i] + "\"/>";
  m_overlay += "\n";
  const Axis a{"", lo, hi, log, {}};
  for (double v : ticks) {
    if (!(v >= lo && v <= hi) || (log && v <= 0)) continue;
    const double Y = bottom - frac(a, v) * (bottom - top);
    m_overlay += "<line x1=\"" + num(x + 16) + "\" y1=\"" + num(Y) + "\" x2=\"" + num(x + 20) + "\" y2=\"" + num(Y) +
                 "\" stroke=\"#333\"/><text x=\"" + num(x + 23) + "\" y=\"" + num(Y + 4) + "\">" + html_escape(tick_text(v)) +
                 "</text>\n";
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

std::string SvgPlot::axes_svg() const {
  const double l = m_left, r = m_width - m_right, t = m_top, b = m_height - m_bottom;
  std::string s = "<rect x=\"" + num(l) + "\" y=\"" + num(t) + "\" width=\"" + num(r - l) + "\" height=\"" +
                  num(b - t) + "\" fill=\"#fff\" stroke=\"#999\"/>\n";
  for (double v : ticks(m_x)) {
    const double X = px(v);
    s += "<line class=\"grid\" x1=\"" + num(X) + "\" y1=\"" + num(t) + "\" x2=\"" + num(X) + "\" y2=\"" + num(b) +
         "\"/><text x=\"" + num(X) + "\" y=\"" + num(b + 14) + "\" text-anchor=\"middle\">" +
         html_escape(tick_text(v)) + "</text>\n";
  }
  for (double v : ticks(m_y)) {
    const double Y = py(v);
    s += "<line class=\"grid\" x1=\"" + num(l) + "\" y1=\"" + num(Y) + "\" x2=\"" + num(r) + "\" y2=\"" + num(Y) +
         "\"/><text x=\"" + num(l - 4) + "\" y=\"" + num(Y + 4) + "\" text-anchor=\"end\">" +
         html_escape(tick_text(v)) + "</text>\n";
  }
  // Centred under the frame, within the plot (12 px font: up to 7.6 px a character).
  const size_t x_fits = static_cast<size_t>(2 * std::min((l + r) / 2, m_width - (l + r) / 2) / 7.6);
  s += "<text class=\"axis-label\" x=\"" + num((l + r) / 2) + "\" y=\"" + num(m_height - 10) + "\" text-anchor=\"middle\">" +
       html_escape(middle_cut(m_x.label + (m_x.log ? ", log scale" : ""), x_fits)) + "</text>\n";
  s += "<text class=\"axis-label\" transform=\"translate(14," + num((t + b) / 2) +
       ") rotate(-90)\" text-anchor=\"middle\">" + html_escape(m_y.label + (m_y.log ? ", log scale" : "")) +
       "</text>\n";
  // A title wider than the plot loses its middle (13 px bold DejaVu Sans: up to 8.4 px a character).
  const std::string title = middle_cut(m_title, static_cast<size_t>(std::max(8.0, (m_width - l - 4) / 8.4)));
  s += "<text class=\"plot-title\" x=\"" + num(l) + "\" y=\"18\">" + html_escape(title) + "</text>\n";
  return s;
}

std::string SvgPlot::legend_svg() const {
  std::string s;
  double y = m_top + 14;
  const double x = m_legend_outside ? m_width - m_right + 16 : m_legend_left ? m_left + 10 : m_width - m_right - 190;
  for (const LegendEntry& e : m_legend) {
    if (e.dot)
      s += "<circle cx=\"" + num(x + 7) + "\" cy=\"" + num(y - 3) + "\" r=\"4\" fill=\"" + e.color + "\"/>";
    else if (e.swatch)
      s += "<rect x=\"" + num(x) + "\" y=\"" + num(y - 8) + "\" width=\"14\" height=\"10\" fill=\"" + e.color + "\"/>";
    else
      s += "<line x1=\"" + num(x) + "\" y1=\"" + num(y - 3) + "\" x2=\"" + num(x + 14) + "\" y2=\"" + num(y - 3) +
           "\" stroke=\"" + e.color + "\" stroke-width=\"2\"" + dash_attr(e.dashed) + "/>";
    // The outside column holds 29 characters of the 11 px font (up to 7 px each) beside its swatch.
    const std::string text = middle_cut(e.text, m_legend_outside ? 29 : 38);
    s += "<text x=\"" + num(x + 20) + "\" y=\"" + num(y + 1) + "\">" + html_escape(text) + "</text>\n";
    y += 15;
  }
  if (s.empty()) return s;
  return "<g class=\"legend\"><rect x=\"" + num(x - 6) + "\" y=\"" + num(m_top + 2) + "\" width=\"" + num(m_legend_outside ? m_right - 16 : 194) + "\" height=\"" +
         num(15.0 * static_cast<double>(m_legend.size()) + 6) + "\" fill=\"#fff\" fill-opacity=\"0.85\" stroke=\"#ccc\"/>\n" +
         s + "</g>\n";
}

std::string SvgPlot::str() const {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" width=\"" + std::to_string(m_width) +
         "\" height=\"" + std::to_string(m_height) + "\" viewBox=\"0 0 " + std::to_string(m_width) + " " +
         std::to_string(m_height) + "\" role=\"img\" aria-label=\"" + html_escape(m_title) + "\">\n" + axes_svg() +
         m_body + legend_svg() + m_overlay + "</svg>\n";
}

}  // namespace kp
