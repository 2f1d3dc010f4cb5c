#include "tools/validate/step_measurements.h"

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "core/config_error.h"
#include "core/limits.h"
#include "models/step_curve/csv_table.h"
#include "tools/validate/pollux_validation.h"

namespace kp {

namespace {

// A step of more than a day is a unit typo (milliseconds written as seconds would be 1000x too
// large, but still below this; the fit's residuals show it).
constexpr double kMaxStepS = 86400;

std::vector<StepMeasurement> read_native(const CsvTable& t) {
  std::vector<Diagnostic> diags = t.diagnostics;
  const int ib = t.find("batch"), is = t.find("step_time_s");
  for (size_t i = 0; i < t.header.size(); ++i)
    if (t.header[i] != "batch" && t.header[i] != "step_time_s")
      diags.push_back({t.origin, t.header_line, t.header_cols[i], t.header[i],
                       "unknown column (expected the header batch,step_time_s)"});
  std::vector<StepMeasurement> rows;
  for (const CsvRow& r : t.rows) {
    StepMeasurement m;
    m.line = r.line;
    const std::string& b = r.fields[static_cast<size_t>(ib)];
    const std::string& s = r.fields[static_cast<size_t>(is)];
    double v = 0;
    if (!parse_double(b, v) || !(v >= 1 && v <= static_cast<double>(limits::kBatch)) || v != std::floor(v))
      diags.push_back({t.origin, r.line, r.cols[static_cast<size_t>(ib)], "batch",
                       "expected an integer batch size in 1.." + std::to_string(limits::kBatch) + ", got \"" + b + "\""});
    else m.batch = static_cast<int64_t>(v);
    if (!parse_double(s, v) || !(v > 0 && v <= kMaxStepS))
      diags.push_back({t.origin, r.line, r.cols[static_cast<size_t>(is)], "step_time_s",
                       "expected a step time in seconds, > 0 and <= 86400, got \"" + s + "\""});
    else m.step_time_s = v;
    rows.push_back(m);
  }
  throw_if_any(diags);
  return rows;
}

std::vector<StepMeasurement> one_device(const std::vector<PlacementRow>& all) {
  std::vector<StepMeasurement> rows;
  for (const PlacementRow& p : all)
    if (p.learners() == 1) rows.push_back({p.line, p.local_bsz, p.step_time_s});
  return rows;
}

}  // namespace

StepMeasurements read_step_measurements(const std::string& path) {
  const CsvTable t = read_csv_table(path);
  StepMeasurements out;
  out.path = path;
  {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    out.bytes = ss.str();
  }
  if (t.find("placement") >= 0) {
    out.layout = "pollux placements (placement 1)";
    out.rows = one_device(read_placements(path));
  } else if (t.find("num_replicas") >= 0) {
    out.layout = "pollux scalability (1 replica)";
    out.rows = one_device(read_scalability(path));
  } else if (t.find("batch") >= 0 && t.find("step_time_s") >= 0) {
    out.layout = "batch,step_time_s";
    out.rows = read_native(t);
  } else {
    std::string header;
    for (const std::string& h : t.header) header += (header.empty() ? "" : ",") + h;
    throw ConfigError({{path, t.header_line, 1, "",
                        "expected the header batch,step_time_s (or a Pollux placements.csv / scalability.csv), got \"" +
                            header + "\""}});
  }
  if (out.rows.empty())
    throw ConfigError({{path, t.header_line, 1, "",
                        t.rows.empty() ? std::string("no data rows after the header")
                                       : "no one-device rows (" + out.layout + ") to calibrate on"}});
  std::set<int64_t> batches;
  for (const StepMeasurement& m : out.rows) batches.insert(m.batch);
  if (batches.size() < 2)
    throw ConfigError({{path, out.rows.front().line, 1, "batch",
                        "expected a batch sweep (at least two distinct batch sizes), got only " +
                            std::to_string(out.rows.front().batch)}});
  return out;
}

}  // namespace kp
