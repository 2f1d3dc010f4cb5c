#include "tools/import/tensor_view.h"

namespace kp {

bool TensorView::matches(const std::vector<int64_t>& d, int64_t n) const {
  switch (kind) {
    case Image: return d == std::vector<int64_t>{n, c, h, w};
    case Sequence:
      return d == std::vector<int64_t>{n, s, f} || d == std::vector<int64_t>{s, n, f} ||
             d == std::vector<int64_t>{n, f, s};
    case Vector: return d == std::vector<int64_t>{n, f};
    case Tokens: return d == std::vector<int64_t>{n, s};
    case None: return false;
  }
  return false;
}

std::string TensorView::text() const {
  auto x = [](int64_t v) { return std::to_string(v); };
  switch (kind) {
    case Image: return "image " + x(c) + "x" + x(h) + "x" + x(w);
    case Sequence: return "sequence " + x(s) + "x" + x(f);
    case Vector: return "vector " + x(f);
    case Tokens: return "tokens " + x(s);
    case None: break;
  }
  return "?";
}

}  // namespace kp
