#include "tools/report/axis_ticks.h"

#include <cmath>
#include <cstdio>

namespace kp {
namespace {

bool needs_exponent(double v) {
  const double a = std::fabs(v);
  return a != 0 && (a >= 1e6 || a < 1e-3);
}

// 3 significant digits with an exponent, trailing zeros of the mantissa dropped: 5e-05, 2.5e+06.
std::string exponent_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2e", v);
  std::string s = buf;
  const size_t e = s.find('e');
  std::string mantissa = s.substr(0, e);
  while (mantissa.find('.') != std::string::npos && (mantissa.back() == '0' || mantissa.back() == '.'))
    mantissa.pop_back();
  return mantissa + s.substr(e);
}

}  // namespace

std::string tick_text(double v) {
  char buf[32];
  if (needs_exponent(v)) {
    std::snprintf(buf, sizeof buf, "%.3g", v);
  } else if (std::fabs(v) >= 1 && v == std::floor(v)) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.3g", v);
  }
  return buf;
}

std::vector<std::string> tick_texts(const std::vector<double>& values) {
  bool exponent = false;
  for (double v : values) exponent = exponent || needs_exponent(v);
  std::vector<std::string> out;
  for (double v : values) out.push_back(exponent && v != 0 ? exponent_text(v) : tick_text(v));
  return out;
}

std::vector<double> auto_ticks(double lo, double hi, bool log) {
  std::vector<double> t;
  const double eps = 1e-9;
  if (log) {
    const double decades = std::log10(hi / lo);
    const int step = decades > 8 ? 2 : 1;
    const std::vector<double> mult = decades < 3 ? std::vector<double>{1, 2, 5} : std::vector<double>{1};
    for (int k = static_cast<int>(std::floor(std::log10(lo))); k <= std::ceil(std::log10(hi)); k += step)
      for (double m : mult) {
        const double v = m * std::pow(10.0, k);
        if (v >= lo * (1 - eps) && v <= hi * (1 + eps)) t.push_back(v);
      }
    return t;
  }
  const double raw = (hi - lo) / 6;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  for (double v = std::ceil(lo / step) * step; v <= hi + eps * step; v += step) t.push_back(std::fabs(v) < eps * step ? 0 : v);
  return t;
}

}  // namespace kp
