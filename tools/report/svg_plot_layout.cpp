// SvgPlot's text layout: ticks, title, axis labels, legend and the movable labels, placed so that
// no two texts overlap (see label_placer.h for the method).
#include <algorithm>
#include <cmath>

#include "core/number_format.h"
#include "tools/report/label_placer.h"
#include "tools/report/plot_util.h"
#include "tools/report/svg_plot.h"

namespace kp {
namespace {

std::string num(double v) { return format_double(v, "%.1f"); }

std::string dash_attr(bool dashed) { return dashed ? " stroke-dasharray=\"6 4\"" : ""; }

// The legend's rows: 15 px each from 14 px below the frame's top.
constexpr double kLegendRowPx = 15;

}  // namespace

// Tick texts of 11 px: y ticks end 4 px left of the frame, x ticks are centred 14 px below it.
// Each axis keeps the regular subset whose texts do not touch; an x tick that would touch a y tick
// (the bottom-left corner) or leave the plot is dropped. Grid lines follow the kept ticks.
void SvgPlot::lay_out_ticks(LabelPlacer& placer, Layout& out) const {
  const Box f = frame(), page{0, 0, static_cast<double>(m_width), static_cast<double>(m_height)};
  const std::vector<double> yv = ticks(m_y);
  const std::vector<std::string> yt = tick_texts(yv);
  std::vector<Box> yb;
  for (size_t i = 0; i < yv.size(); ++i) yb.push_back(text_box(yt[i], f.left - 4, py(yv[i]) + 4, Anchor::end, 11));
  for (size_t i : thin_ticks(yb)) {
    const double Y = py(yv[i]);
    out.axes += "<line class=\"grid\" x1=\"" + num(f.left) + "\" y1=\"" + num(Y) + "\" x2=\"" + num(f.right) + "\" y2=\"" +
                num(Y) + "\"/><text x=\"" + num(f.left - 4) + "\" y=\"" + num(Y + 4) + "\" text-anchor=\"end\">" +
                html_escape(yt[i]) + "</text>\n";
    placer.reserve(yb[i]);
    out.text_boxes.push_back(yb[i]);
  }
  const std::vector<Box> y_kept = placer.boxes();
  const std::vector<double> all_x = ticks(m_x);
  const std::vector<std::string> all_xt = tick_texts(all_x);
  std::vector<double> xv;
  std::vector<std::string> xt;
  std::vector<Box> xb;
  for (size_t i = 0; i < all_x.size(); ++i) {
    const Box b = text_box(all_xt[i], px(all_x[i]), f.bottom + 14, Anchor::middle, 11);
    bool clear = b.inside(page);
    for (const Box& y : y_kept) clear = clear && !b.intersects(y, 1.5);
    if (!clear) continue;
    xv.push_back(all_x[i]);
    xt.push_back(all_xt[i]);
    xb.push_back(b);
  }
  for (size_t i : thin_ticks(xb)) {
    const double X = px(xv[i]);
    out.axes += "<line class=\"grid\" x1=\"" + num(X) + "\" y1=\"" + num(f.top) + "\" x2=\"" + num(X) + "\" y2=\"" +
                num(f.bottom) + "\"/><text x=\"" + num(X) + "\" y=\"" + num(f.bottom + 14) +
                "\" text-anchor=\"middle\">" + html_escape(xt[i]) + "</text>\n";
    placer.reserve(xb[i]);
    out.text_boxes.push_back(xb[i]);
  }
}

// Marks first (a label must not hide another label's point), then each label at its first free
// spot; a label equal to one already placed within a ring's width is merged into it.
void SvgPlot::lay_out_labels(LabelPlacer& placer, std::vector<LegendEntry>& legend, Layout& out) const {
  for (const PendingLabel& l : m_labels)
    if (l.ring) placer.reserve(l.mark_box);
  std::vector<std::pair<const PendingLabel*, Box>> placed;
  for (const PendingLabel& l : m_labels) {
    bool merged = false;
    for (const auto& [q, box] : placed)
      merged = merged || (q->text == l.text && q->ring && l.ring && std::fabs(q->mark_box.left - l.mark_box.left) < 8 &&
                          std::fabs(q->mark_box.top - l.mark_box.top) < 8);
    const bool bold = l.ring;
    int at = -1;
    if (!merged) {
      std::vector<Box> boxes;
      for (const Spot& s : l.spots) boxes.push_back(text_box(l.text, s.x, s.baseline_y, s.anchor, 11, bold));
      at = placer.place(boxes);
      if (at >= 0) placed.push_back({&l, boxes[static_cast<size_t>(at)]});
    }
    if (at >= 0 || merged) {
      out.labels += l.mark_open + "/>\n";
    } else {
      // No free spot: the text lives on as the mark's hover title, and in an outside legend that
      // has a free row (not under a colour bar, which starts below the legend's rows).
      out.labels += l.mark_open + "><title>" + html_escape(l.text) + "</title></" + l.mark_tag + ">\n";
      const double rows_bottom = m_top + 2 + kLegendRowPx * static_cast<double>(legend.size() + 1) + 6;
      if (m_legend_outside && m_overlay.empty() && rows_bottom <= m_height - m_bottom)
        legend.push_back({l.color, l.text, false, !l.ring, false, l.ring});
    }
    if (at < 0) continue;
    const Spot& s = l.spots[static_cast<size_t>(at)];
    out.labels += "<text x=\"" + num(s.x) + "\" y=\"" + num(s.baseline_y) + "\" fill=\"" + l.color + "\"" +
                  (l.halo.empty() ? "" : " stroke=\"" + l.halo + "\" stroke-width=\"3\" paint-order=\"stroke\"") +
                  (bold ? " font-weight=\"600\"" : "") + " text-anchor=\"" + anchor_name(s.anchor) + "\">" +
                  html_escape(l.text) + "</text>\n";
    out.text_boxes.push_back(placed.back().second);
  }
}

SvgPlot::Layout SvgPlot::layout() const {
  Layout out;
  const Box f = frame();
  LabelPlacer placer(f);
  out.axes = "<rect x=\"" + num(f.left) + "\" y=\"" + num(f.top) + "\" width=\"" + num(f.right - f.left) + "\" height=\"" +
             num(f.bottom - f.top) + "\" fill=\"#fff\" stroke=\"#999\"/>\n";
  lay_out_ticks(placer, out);
  const double l = f.left, r = f.right, t = f.top, b = f.bottom;
  // Centred under the frame, within the plot.
  const std::string x_label = m_x.label + (m_x.log ? ", log scale" : "");
  const double x_room = 2 * std::min((l + r) / 2, m_width - (l + r) / 2) - 4;
  size_t x_fits = x_label.size();
  while (x_fits > 8 && text_width_px(middle_cut(x_label, x_fits), 12) > x_room) --x_fits;
  const std::string x_text = middle_cut(x_label, x_fits);
  out.axes += "<text class=\"axis-label\" x=\"" + num((l + r) / 2) + "\" y=\"" + num(m_height - 10) +
              "\" text-anchor=\"middle\">" + html_escape(x_text) + "</text>\n";
  out.text_boxes.push_back(text_box(x_text, (l + r) / 2, m_height - 10, Anchor::middle, 12));
  const std::string y_label = m_y.label + (m_y.log ? ", log scale" : "");
  out.axes += "<text class=\"axis-label\" transform=\"translate(14," + num((t + b) / 2) +
              ") rotate(-90)\" text-anchor=\"middle\">" + html_escape(y_label) + "</text>\n";
  const double y_half = text_width_px(y_label, 12) / 2;  // rotated: the ascent points left
  out.text_boxes.push_back({14 - 0.93 * 12 - 0.5, (t + b) / 2 - y_half - 0.5, 14 + 0.24 * 12 + 0.5, (t + b) / 2 + y_half + 0.5});
  // A title wider than the plot loses its middle (13 px bold).
  size_t title_fits = m_title.size();
  while (title_fits > 8 && text_width_px(middle_cut(m_title, title_fits), 13, true) > m_width - l - 4) --title_fits;
  const std::string title = middle_cut(m_title, title_fits);
  out.axes += "<text class=\"plot-title\" x=\"" + num(l) + "\" y=\"18\">" + html_escape(title) + "</text>\n";
  out.text_boxes.push_back(text_box(title, l, 18, Anchor::start, 13, true));
  for (const Box& box : out.text_boxes) placer.reserve(box);
  for (const Box& box : m_reserved) {
    placer.reserve(box);
    out.text_boxes.push_back(box);
  }
  std::vector<LegendEntry> legend = m_legend;
  if (!m_legend_outside && !legend.empty()) {
    const double x = m_legend_left ? m_left + 10 : m_width - m_right - 190;
    placer.reserve({x - 6, m_top + 2, x + 188, m_top + 8 + kLegendRowPx * static_cast<double>(legend.size())});
  }
  lay_out_labels(placer, legend, out);
  out.legend = legend_svg(legend, &out.text_boxes);
  return out;
}

std::string SvgPlot::legend_svg(const std::vector<LegendEntry>& legend, std::vector<Box>* boxes) const {
  std::string s;
  double y = m_top + 14;
  const double x = m_legend_outside ? m_width - m_right + 16 : m_legend_left ? m_left + 10 : m_width - m_right - 190;
  for (const LegendEntry& e : legend) {
    if (e.ring)
      s += "<circle cx=\"" + num(x + 7) + "\" cy=\"" + num(y - 3) + "\" r=\"5\" fill=\"none\" stroke=\"" + e.color +
           "\" stroke-width=\"2\"/>";
    else if (e.dot)
      s += "<circle cx=\"" + num(x + 7) + "\" cy=\"" + num(y - 3) + "\" r=\"4\" fill=\"" + e.color + "\"/>";
    else if (e.swatch)
      s += "<rect x=\"" + num(x) + "\" y=\"" + num(y - 8) + "\" width=\"14\" height=\"10\" fill=\"" + e.color + "\"/>";
    else
      s += "<line x1=\"" + num(x) + "\" y1=\"" + num(y - 3) + "\" x2=\"" + num(x + 14) + "\" y2=\"" + num(y - 3) +
           "\" stroke=\"" + e.color + "\" stroke-width=\"2\"" + dash_attr(e.dashed) + "/>";
    // The text stays inside the legend's box: its middle goes when it is wider than the box less the
    // swatch (20 px) and a 6 px margin.
    const double room = (m_legend_outside ? m_right - 16 : 194) - 26;
    size_t fits = e.text.size();
    while (fits > 8 && text_width_px(middle_cut(e.text, fits), 11) > room) --fits;
    const std::string text = middle_cut(e.text, fits);
    s += "<text x=\"" + num(x + 20) + "\" y=\"" + num(y + 1) + "\">" + html_escape(text) + "</text>\n";
    boxes->push_back(text_box(text, x + 20, y + 1, Anchor::start, 11));
    y += kLegendRowPx;
  }
  if (s.empty()) return s;
  return "<g class=\"legend\"><rect x=\"" + num(x - 6) + "\" y=\"" + num(m_top + 2) + "\" width=\"" +
         num(m_legend_outside ? m_right - 16 : 194) + "\" height=\"" +
         num(kLegendRowPx * static_cast<double>(legend.size()) + 6) +
         "\" fill=\"#fff\" fill-opacity=\"0.85\" stroke=\"#ccc\"/>\n" + s + "</g>\n";
}

std::string SvgPlot::str() const {
  const Layout l = layout();
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" width=\"" + std::to_string(m_width) +
         "\" height=\"" + std::to_string(m_height) + "\" viewBox=\"0 0 " + std::to_string(m_width) + " " +
         std::to_string(m_height) + "\" role=\"img\" aria-label=\"" + html_escape(m_title) + "\">\n" + l.axes + m_body +
         l.labels + l.legend + m_overlay + "</svg>\n";
}

std::vector<Box> SvgPlot::text_boxes() const { return layout().text_boxes; }

}  // namespace kp
