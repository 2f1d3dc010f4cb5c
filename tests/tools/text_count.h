#pragma once
// Occurrences of `needle` in `hay` (overlapping ones counted): the report tests count marks in SVG.
#include <cstddef>
#include <string>

namespace kp {

inline size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace kp
