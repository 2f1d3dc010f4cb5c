#pragma once
// The box a browser gives an SVG <text>, estimated without a browser, so that the report can place
// labels that never overlap. Contract: the estimate is never smaller than what Chromium measures
// for DejaVu Sans (the sans-serif font of the report's CI image and of most Linux systems); other
// common sans fonts (Liberation Sans, Arial, Helvetica) are narrower, so the boxes stay safe there.
#include <string>

namespace kp {

struct Box {
  double left = 0, top = 0, right = 0, bottom = 0;
  // True when the two boxes share more than `gap_px` each way (the render test's 1 px tolerance
  // is the other side of this: callers pass a gap of 0 or more).
  bool intersects(const Box& o, double gap_px = 0) const;
  bool inside(const Box& frame) const;
};

enum class Anchor { start, middle, end };

// Width of `text` (UTF-8) at `font_px`: the advances of DejaVu Sans Book (or Bold) for printable
// ASCII, 1 em for any other character (DejaVu's widest, e.g. the ellipsis), 5% added for hinting.
double text_width_px(const std::string& text, double font_px, bool bold = false);

// The box of <text x=x y=baseline_y text-anchor=anchor>: DejaVu's ascent 0.93 em above the
// baseline and descent 0.24 em below it (hhea 1901 and 483 of 2048 units), plus half a pixel of rounding each side.
Box text_box(const std::string& text, double x, double baseline_y, Anchor anchor, double font_px,
             bool bold = false);

// "start", "middle", "end": the SVG attribute value.
const char* anchor_name(Anchor a);

}  // namespace kp
