#include "core/number_format.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace kp {

std::string format_double(double v, const char* format) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string format_sig(double v, int digits) {
  if (!std::isfinite(v)) return format_double(v, "%g");
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

std::string format_round_trip(double v) {
  if (!std::isfinite(v)) return format_double(v, "%g");
  // 15 digits spell most decimal inputs (0.05, not 0.050000000000000003); 17 always read back.
  for (int digits = 15; digits < 17; ++digits) {
    const std::string s = format_sig(v, digits);
    if (std::strtod(s.c_str(), nullptr) == v) return s;
  }
  return format_sig(v, 17);
}

std::string json_number(double v, int digits) { return std::isfinite(v) ? format_sig(v, digits) : "null"; }

}  // namespace kp
