#include "tools/report/report_writer.h"

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "core/atomic_file.h"
#include "tools/report/html_report.h"
#include "tools/report/plot_util.h"

namespace kp {

std::string shown_path(const StudyResult& r, const std::string& file) {
  namespace fs = std::filesystem;
  if (file.empty()) return file;
  std::error_code ec;
  const fs::path base = r.spec.source_file.empty() ? fs::current_path(ec)
                                                   : fs::absolute(fs::path(r.spec.source_file), ec).parent_path();
  const fs::path rel = fs::absolute(fs::path(file), ec).lexically_relative(base);
  return rel.empty() ? fs::path(file).filename().string() : rel.string();
}

std::string total_seconds_text(double s) {
  return fmt("%.4g", s) + " s" + (s >= 60 ? " (" + human_seconds(s) + ")" : "");
}

std::string energy_text(double j) { return fmt("%.4g", j) + " J" + (j >= 1e6 ? " (" + human_joules(j) + ")" : ""); }

std::string human_seconds(double s) {
  if (!std::isfinite(s)) return "inf";
  if (s >= 2 * 86400) return fmt("%.1f days", s / 86400);
  if (s >= 2 * 3600) return fmt("%.1f h", s / 3600);
  if (s >= 120) return fmt("%.1f min", s / 60);
  if (s >= 1) return fmt("%.2f s", s);
  if (s >= 1e-3) return fmt("%.2f ms", s * 1e3);
  return fmt("%.1f us", s * 1e6);
}

std::string human_joules(double j) {
  if (!std::isfinite(j)) return "inf";
  if (j >= 3.6e9) return fmt("%.3g MWh", j / 3.6e9);
  if (j >= 1e6) return fmt("%.3g kWh", j / 3.6e6);
  if (j >= 1e3) return fmt("%.3g kJ", j / 1e3);
  if (j >= 1) return fmt("%.3g J", j);
  return fmt("%.3g mJ", j * 1e3);
}

std::string usd_text(double v) { return fmt(v >= 0.01 || v == 0 ? "%.2f" : "%.2g", v); }

void write_report(const StudyResult& r, const std::string& dir) {
  // Like `mkdir -p`: the default output folder's parent does not exist on a fresh clone.
  for (size_t pos = dir.find('/', 1); ; pos = dir.find('/', pos + 1)) {
    const std::string prefix = pos == std::string::npos ? dir : dir.substr(0, pos);
    if (!prefix.empty() && ::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST)
      throw std::runtime_error("cannot create folder " + prefix);
    if (pos == std::string::npos) break;
  }
  write_file_atomic(dir + "/report.md", report_markdown(r));
  write_file_atomic(dir + "/points.csv", points_csv(r));
  write_file_atomic(dir + "/designs.csv", designs_csv(r));
  write_file_atomic(dir + "/summary.json", summary_json(r));
  write_file_atomic(dir + "/report.html", report_html(r));
}

}  // namespace kp
