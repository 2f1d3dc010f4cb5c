#include "models/step_curve/curve_csv.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <ostream>
#include <sstream>

#include "core/config_error.h"
#include "models/step_curve/csv_table.h"

namespace kp {
namespace {

std::string format_number(double v) {
  if (std::isinf(v)) return "inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  // Prefer the short form when it round-trips (e.g. 128 rather than 128.00000000000000).
  char shorter[32];
  std::snprintf(shorter, sizeof shorter, "%.15g", v);
  return std::strtod(shorter, nullptr) == v ? shorter : buf;
}

}  // namespace

std::vector<CurvePoint> read_curve_csv(const std::string& path) {
  CsvTable table = read_csv_table(path);
  const int batch_col = table.find("batch");
  const int steps_col = table.find("steps");
  std::vector<Diagnostic> diagnostics = table.diagnostics;
  if (batch_col < 0 || steps_col < 0) {
    std::string missing = batch_col < 0 ? "batch" : "steps";
    throw ConfigError({{path, table.header_line, 1, "", "header lacks the column `" + missing +
                                            "` (expected at least `batch,steps`)"}});
  }
  if (table.find("measure") >= 0)
    throw ConfigError({{path, table.header_line, table.header_cols[table.find("measure")], "measure",
                        "a published-steps file (published_curve.h) holds several curves; fit one with "
                        "`kneepoint fit " + path + " --optimizer O --target T` and give its law"}});
  std::vector<CurvePoint> points;
  for (const CsvRow& row : table.rows) {
    CurvePoint p;
    const std::string& b = row.fields[batch_col];
    if (!parse_double(b, p.batch) || !(p.batch >= 1.0 && p.batch <= kMaxCurveBatch) ||
        p.batch != std::floor(p.batch)) {
      diagnostics.push_back({path, row.line, row.cols[batch_col], "batch",
                             "expected an integer batch size in 1..1e9, got \"" + b + "\""});
      continue;
    }
    const std::string& s = row.fields[steps_col];
    if (is_failure_marker(s)) {
      p.steps = std::numeric_limits<double>::infinity();
    } else if (!parse_double(s, p.steps) || !(p.steps >= 1.0 && p.steps <= kMaxCurveSteps)) {
      diagnostics.push_back({path, row.line, row.cols[steps_col], "steps",
                             "expected a step count in 1..1e12 (or inf for a failed trial), got \"" + s + "\""});
      continue;
    }
    points.push_back(p);
  }
  throw_if_any(std::move(diagnostics));
  if (points.empty())
    throw ConfigError({{path, table.header_line, 1, "", "no data rows after the header (expected batch,steps rows)"}});
  return points;
}

std::map<std::string, std::string> read_curve_provenance(const std::string& path) {
  std::map<std::string, std::string> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] != '#') break;
    const size_t start = line.find_first_not_of("# ");
    const size_t colon = line.find(": ", start);
    if (start == std::string::npos || colon == std::string::npos) continue;
    out.emplace(line.substr(start, colon - start), line.substr(colon + 2));
  }
  return out;
}

void write_curve_csv(std::ostream& out, const std::vector<CurvePoint>& points,
                     const std::string& comment) {
  if (!comment.empty()) {
    std::istringstream lines(comment);
    std::string line;
    while (std::getline(lines, line)) out << "# " << line << '\n';
  }
  out << "batch,steps\n";
  for (const CurvePoint& p : points) out << format_number(p.batch) << ',' << format_number(p.steps) << '\n';
}

void write_curve_csv(const std::string& path, const std::vector<CurvePoint>& points,
                     const std::string& comment) {
  std::ofstream out(path);
  if (!out) throw ConfigError(path, "cannot open for writing");
  write_curve_csv(out, points, comment);
  if (!out) throw ConfigError(path, "write failed");
}

}  // namespace kp
