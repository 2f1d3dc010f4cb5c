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
  double last_iteration = -1.0;
  for (const CsvRow& row : table.rows) {
    double v[5];
    bool ok = true;
    for (int k = 0; k < 5; ++k) {
      const std::string& text = row.fields[cols[k]];
      const bool number = parse_double(text, v[k]) && std::isfinite(v[k]);
      // iteration counts updates; grad_sqr and grad_var estimate a squared norm and a variance.
      const bool integer = k == 1, non_negative = k == 1 || k >= 3;
      if (!number || (non_negative && v[k] < 0) || (integer && v[k] != std::floor(v[k]))) {
        diagnostics.push_back({path, row.line, row.cols[cols[k]], names[k],
                               std::string("expected ") +
                                   (integer ? "an integer >= 0" : non_negative ? "a finite number >= 0" : "a finite number") +
                                   ", got \"" + text + "\""});
        ok = false;
      }
    }
    if (ok && v[1] < last_iteration) {
      diagnostics.push_back({path, row.line, row.cols[cols[1]], "iteration",
                             "goes back from " + format_g(last_iteration) + " to " + format_g(v[1]) +
                                 " (rows must be in training order)"});
      ok = false;
    }
    if (!ok) continue;
    last_iteration = v[1];
    run.rows.push_back({v[0], v[1], v[2], v[3], v[4], row.line});
  }
  throw_if_any(std::move(diagnostics));
  if (run.rows.empty()) throw ConfigError({{path, table.header_line, 1, "", "no data rows after the header"}});
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
    if (!std::regex_match(file, m, name)) continue;
    const std::string digits = m[1].str();
    const double batch = digits.size() > 10 ? 0.0 : std::stod(digits);
    if (!(batch >= 1.0 && batch <= kMaxCurveBatch))
      throw ConfigError(e.path().string(), "the batch size in the file name is not in 1..1e9");
    files.emplace_back(batch, e.path().string());
  }
  if (ec) throw ConfigError(dir, "cannot list the folder: " + ec.message());
  if (files.empty()) throw ConfigError(dir, "no validation-<B>.csv files");
  std::sort(files.begin(), files.end());
  for (std::size_t i = 1; i < files.size(); ++i)
    if (files[i].first == files[i - 1].first)
      throw ConfigError(files[i].second, "a second trace for batch size " + format_g(files[i].first) +
                                             " (also " + files[i - 1].second + "): keep one");
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
    if (hit->iteration < 1.0) {  // a step curve counts updates: zero would make log N undefined
      diagnostics.push_back({run.path, hit->line, 1, "iteration",
                             "reaches the threshold " + format_g(threshold) + " at iteration " +
                                 format_g(hit->iteration) + ", before any update"});
      continue;
    }
    points.push_back({run.batch, hit->iteration});
  }
  throw_if_any(std::move(diagnostics));
  return points;
}

}  // namespace kp
