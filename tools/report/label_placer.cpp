#include "tools/report/label_placer.h"

namespace kp {

LabelPlacer::LabelPlacer(Box frame, double gap_px) : m_frame(frame), m_gap(gap_px) {}

void LabelPlacer::reserve(const Box& b) { m_boxes.push_back(b); }

bool LabelPlacer::fits(const Box& b) const {
  if (!b.inside(m_frame)) return false;
  for (const Box& o : m_boxes)
    if (b.intersects(o, m_gap)) return false;
  return true;
}

int LabelPlacer::place(const std::vector<Box>& candidates) {
  for (size_t i = 0; i < candidates.size(); ++i)
    if (fits(candidates[i])) {
      m_boxes.push_back(candidates[i]);
      return static_cast<int>(i);
    }
  return -1;
}

std::vector<size_t> thin_ticks(const std::vector<Box>& boxes, double gap_px) {
  const size_t n = boxes.size();
  for (size_t stride = 1; stride <= n; ++stride) {
    std::vector<size_t> kept;
    for (size_t i = n; i-- > 0;)
      if ((n - 1 - i) % stride == 0) kept.insert(kept.begin(), i);
    bool clear = true;
    for (size_t k = 0; k + 1 < kept.size() && clear; ++k) clear = !boxes[kept[k]].intersects(boxes[kept[k + 1]], gap_px);
    if (clear) return kept;
  }
  return {};
}

}  // namespace kp
