#include "models/step_curve/pollux_trace.h"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <filesystem>
#include <limits>
#include <regex>

#include "core/config_error.h"
#include "models/step_curve/csv_table.h"

namespace kp {
namespace {

std::string format_g(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

PolluxRun read_run(const std::string& path, double batch) {
  CsvTable table = read_csv_table(path);
  const char* names[] = {"progress", "iteration", "metric", "grad_sqr", "grad_var"};
  int cols[5];
  for (int k = 0; k < 5; ++k) {
    cols[k] = table.find(names[k]);
    if (cols[k] < 0)
      throw ConfigError({{path, table.header_line, 1, "", std::string("header lacks the column `") + names[k] + "`"}});
  }
  PolluxRun run{path, batch, {}};
  std::vector<Diagnostic> diagnostics = table.diagnostics;
  for (const CsvRow& row : table.rows) {
    double v[5];
    bool ok = true;
    for (int k = 0; k < 5; ++k) {
      if (!parse_double(row.fields[cols[k]], v[k]) || !std::isfinite(v[k])) {
        diagnostics.push_back({path, row.line, row.cols[cols[k]], names[k],
                               "expected a finite number, got \"" + row.fields[cols[k]] + "\""});
        ok = false;
      }
    }
    if (ok) run.rows.push_back({v[0], v[1], v[2], v[3], v[4]});
  }
  throw_if_any(std::move(diagnostics));
  if (run.rows.empty()) throw ConfigError(path, "no data rows");
  return run;
}

}  // namespace

double PolluxRun::best_metric() const {
  double best = -std::numeric_limits<double>::infinity();
  for (const PolluxRow& r : rows) best = std::max(best, r.metric);
  return best;
}

double PolluxRun::b_simple(double b0) const {
  double var = 0.0, sqr = 0.0;
  for (const PolluxRow& r : rows) var += r.grad_var, sqr += r.grad_sqr;
  return sqr > 0.0 ? b0 * var / sqr : std::numeric_limits<double>::infinity();
}

std::vector<PolluxRun> read_pollux_traces(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw ConfigError(dir, "not a directory of Pollux traces");
  const std::regex name(R"(validation-([0-9]+)\.csv)");
  std::vector<std::pair<double, std::string>> files;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    std::smatch m;
    const std::string file = e.path().filename().string();
    if (std::regex_match(file, m, name)) files.emplace_back(std::stod(m[1].str()), e.path().string());
  }
  if (files.empty()) throw ConfigError(dir, "no validation-<B>.csv files");
  std::sort(files.begin(), files.end());
  std::vector<PolluxRun> runs;
  for (const auto& [batch, path] : files) runs.push_back(read_run(path, batch));
  return runs;
}

double pollux_default_threshold(const std::vector<PolluxRun>& runs) {
  double threshold = std::numeric_limits<double>::infinity();
  for (const PolluxRun& run : runs) threshold = std::min(threshold, run.best_metric());
  return threshold;
}

std::vector<CurvePoint> pollux_step_curve(const std::vector<PolluxRun>& runs, double threshold) {
  std::vector<CurvePoint> points;
  std::vector<Diagnostic> diagnostics;
  for (const PolluxRun& run : runs) {
    auto hit = std::find_if(run.rows.begin(), run.rows.end(),
                            [&](const PolluxRow& r) { return r.metric >= threshold; });
    if (hit == run.rows.end()) {
      diagnostics.push_back({run.path, 0, 0, "metric",
                             "never reaches the threshold " + format_g(threshold) + " (best " +
                                 format_g(run.best_metric()) + ")"});
      continue;
    }
    points.push_back({run.batch, hit->iteration});
  }
  throw_if_any(std::move(diagnostics));
  return points;
}

}  // namespace kp
