#include "models/step_curve/published_curve.h"

#include <cmath>
#include <map>

#include "core/config_error.h"
#include "models/step_curve/csv_table.h"

namespace kp {

std::vector<PublishedRun> read_published_curve(const std::string& path) {
  CsvTable table = read_csv_table(path);
  const char* names[] = {"batch", "steps", "target", "optimizer", "measure", "source"};
  int cols[6];
  for (int k = 0; k < 6; ++k) {
    cols[k] = table.find(names[k]);
    if (cols[k] < 0)
      throw ConfigError({{path, table.header_line, 1, "",
                          std::string("header lacks the column `") + names[k] +
                              "` (expected batch,steps,target,optimizer,measure,source)"}});
  }
  std::vector<Diagnostic> diagnostics = table.diagnostics;
  std::vector<PublishedRun> runs;
  for (const CsvRow& row : table.rows) {
    auto bad = [&](int k, const std::string& expected) {
      diagnostics.push_back({path, row.line, row.cols[cols[k]], names[k],
                             "expected " + expected + ", got \"" + row.fields[cols[k]] + "\""});
    };
    PublishedRun r;
    r.line = row.line;
    bool ok = true;
    if (!parse_double(row.fields[cols[0]], r.batch) || !(r.batch >= 1.0 && r.batch <= kMaxCurveBatch) ||
        r.batch != std::floor(r.batch)) {
      bad(0, "an integer batch size in 1..1e9");
      ok = false;
    }
    if (!parse_double(row.fields[cols[1]], r.steps) || !(r.steps >= 1.0 && r.steps <= kMaxCurveSteps)) {
      bad(1, "a step count in 1..1e12 (a published run reached its target)");
      ok = false;
    }
    if (!parse_double(row.fields[cols[2]], r.target) || !(r.target > 0.0 && r.target <= 1.0)) {
      bad(2, "a quality target in (0, 1]");
      ok = false;
    }
    r.optimizer = row.fields[cols[3]];
    if (r.optimizer != "momentum" && r.optimizer != "lars" && r.optimizer != "lamb") {
      bad(3, "momentum, lars or lamb");
      ok = false;
    }
    const std::string& m = row.fields[cols[4]];
    if (m == "to_target") r.measure = PublishedMeasure::to_target;
    else if (m == "schedule") r.measure = PublishedMeasure::schedule;
    else {
      bad(4, "to_target or schedule");
      ok = false;
    }
    r.source = row.fields[cols[5]];
    if (r.source.empty()) {
      bad(5, "a citation key (explained in the file's comments)");
      ok = false;
    }
    if (ok) runs.push_back(r);
  }
  throw_if_any(std::move(diagnostics));
  if (runs.empty()) throw ConfigError({{path, table.header_line, 1, "", "no data rows after the header"}});
  return runs;
}

std::vector<CurvePoint> select_runs(const std::vector<PublishedRun>& runs, const std::string& optimizer,
                                    PublishedMeasure measure, double target) {
  std::vector<CurvePoint> out;
  for (const PublishedRun& r : runs)
    if (r.optimizer == optimizer && r.measure == measure && std::fabs(r.target - target) <= 1e-9)
      out.push_back({r.batch, r.steps});
  return out;
}

std::vector<CurvePoint> mean_per_batch(const std::vector<CurvePoint>& runs) {
  std::map<double, std::pair<double, int>> sums;  // batch -> (sum of steps, runs)
  for (const CurvePoint& p : runs) {
    auto& [sum, n] = sums[p.batch];
    sum += p.steps;
    ++n;
  }
  std::vector<CurvePoint> out;
  for (const auto& [batch, s] : sums) out.push_back({batch, s.first / s.second});
  return out;
}

}  // namespace kp
