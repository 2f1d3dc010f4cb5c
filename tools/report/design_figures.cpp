#include "tools/report/design_figures.h"

#include "tools/report/plot_util.h"
#include "tools/report/report_writer.h"

namespace kp {

std::string power_text(const SystemResult& s, const TimePoint& p) {
  const double w = p.average_chip_power_w();
  std::string out = "average power per chip " + fmt("%.3g", w) + " W";
  if (!s.power_modelled) return out + " dynamic only (static power not modelled)";
  if (s.tdp_w > 0) {
    out += " (" + fmt("%.0f", 100.0 * w / s.tdp_w) + "% of " + fmt("%.4g", s.tdp_w) + " W TDP";
    const double scale = p.breakdown.power_clock_scale;
    return out + (scale < 1 ? ", clock throttled to " + fmt("%.1f", 100.0 * scale) + "% to stay within it)" : ")");
  }
  return out + " (no TDP given)";
}

std::string silicon_text(const SystemResult& s) {
  std::string out;
  if (s.area_m2 > 0) out += "die " + fmt("%.0f", s.area_m2 * 1e6) + " mm2";
  if (s.chip_price_usd > 0)
    out += (out.empty() ? "" : ", ") + std::string("chip $") + usd_text(s.chip_price_usd) + " to build ($" +
           fmt("%.3g", s.cost_per_chip_hour_usd) + " per chip-hour over its lifetime)";
  return out;
}

std::string tdp_warning_text(const SystemResult& s, const TimePoint& p) {
  if (!s.power_modelled || s.tdp_w <= 0 || p.average_chip_power_w() <= s.tdp_w) return "";
  return "warning: " + s.name + ": average power per chip " + fmt("%.4g", p.average_chip_power_w()) +
         " W exceeds its TDP " + fmt("%.4g", s.tdp_w) + " W";
}

}  // namespace kp
