#pragma once
// Greedy placement of a plot's texts so that none overlaps another: fixed texts (ticks, title,
// legend) are reserved first, then each movable label takes the first of its candidate boxes that
// lies inside the frame and clear of everything placed before it (the ordering of candidates is the
// caller's preference: nearest to its point first). A label with no free candidate is refused, and
// the caller falls back (a legend entry, a hover title); it is never drawn on top of another.
// Contract: deterministic (first fit, in call order); O(labels x candidates x boxes), a plot has tens.
#include <vector>

#include "tools/report/text_box.h"

namespace kp {

class LabelPlacer {
 public:
  // `frame`: where movable labels must lie; `gap_px`: the clearance kept between any two boxes.
  explicit LabelPlacer(Box frame, double gap_px = 1.5);

  // Something already drawn (a tick text, a legend, a marker ring) that labels must avoid.
  void reserve(const Box& b);
  // True when `b` lies inside the frame and clear of every box reserved or placed so far.
  bool fits(const Box& b) const;
  // The index of the first candidate that fits, now reserved; -1 when none does.
  int place(const std::vector<Box>& candidates);

  const std::vector<Box>& boxes() const { return m_boxes; }

 private:
  Box m_frame;
  double m_gap;
  std::vector<Box> m_boxes;
};

// Indices of the ticks to keep so that no two kept boxes (in axis order) overlap: every k-th tick,
// counted from the last one (the end of a grid a reader looks for), with the smallest k that works.
// The same stride all along keeps a log axis regular (every decade, or every other one).
std::vector<size_t> thin_ticks(const std::vector<Box>& boxes, double gap_px = 3);

}  // namespace kp
