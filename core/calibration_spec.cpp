#include "core/calibration_spec.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "core/config_doc.h"
#include "core/limits.h"

namespace kp {

const char* fitted_constant_name(FittedConstant c) {
  switch (c) {
    case FittedConstant::ComputeEfficiency: return "compute_efficiency";
    case FittedConstant::StepOverhead: return "step_overhead";
    case FittedConstant::KernelLaunch: return "kernel_launch";
  }
  return "?";
}

const char* fitted_constant_key(FittedConstant c) {
  switch (c) {
    case FittedConstant::ComputeEfficiency: return "chip.compute.efficiency";
    case FittedConstant::StepOverhead: return "runtime.step_overhead";
    case FittedConstant::KernelLaunch: return "runtime.kernel_launch";
  }
  return "?";
}

std::string CalibrationSpec::fitted_text() const {
  std::string out;
  for (int i = 0; i < kFittedConstants; ++i)
    if (fitted[i]) out += (out.empty() ? "" : ", ") + std::string(fitted_constant_name(static_cast<FittedConstant>(i)));
  return out;
}

namespace {

std::string trimmed(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

void parse_fitted(ConfigMap& m, CalibrationSpec& c) {
  const std::string text = m.text("fitted");
  if (!m.has("fitted")) return;
  size_t start = 0;
  bool any = false;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const std::string name = trimmed(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    bool known = false;
    for (int i = 0; i < kFittedConstants; ++i)
      if (name == fitted_constant_name(static_cast<FittedConstant>(i))) c.fitted[i] = known = any = true;
    if (!known)
      m.error("fitted", "expected a comma-separated list of compute_efficiency, step_overhead, kernel_launch, got \"" +
                            text + "\"");
    if (comma == std::string::npos || !known) break;
    start = comma + 1;
  }
  if (!any && m.ok()) m.error("fitted", "expected at least one fitted constant");
}

void parse_hash(ConfigMap& m, const std::string& key, std::string& out) {
  out = m.text(key);
  bool ok = out.size() == 16;
  for (char ch : out) ok = ok && std::isxdigit(static_cast<unsigned char>(ch)) && !std::isupper(static_cast<unsigned char>(ch));
  if (m.has(key) && !ok) m.error(key, "expected 16 lower-case hex digits (FNV-1a 64), got \"" + out + "\"");
}

// `fitted_values: [e, O s, L s]`, one per fitted constant in FittedConstant order.
void parse_values(ConfigMap& m, CalibrationSpec& c) {
  m.describe("fitted_values", "list of numbers (SI: factor, seconds)", true);
  const YAML::Node n = m.node().IsMap() ? m.node()["fitted_values"] : YAML::Node();
  if (!n || !n.IsSequence() || n.size() != kFittedConstants) {
    m.error("fitted_values", "expected a list of 3 numbers (compute_efficiency, step_overhead s, kernel_launch s)");
    return;
  }
  for (int i = 0; i < kFittedConstants; ++i) {
    double v = -1;
    try {
      if (n[i].IsScalar()) v = n[i].as<double>();
    } catch (const YAML::Exception&) {
    }
    if (!(v >= 0 && std::isfinite(v))) m.error_at(n[i], "fitted_values", "expected a number >= 0");
    c.values[i] = v;
  }
}

}  // namespace

CalibrationSpec parse_calibration(ConfigMap m, const std::string& file, const double (&current)[kFittedConstants]) {
  CalibrationSpec c;
  c.present = true;
  c.file = file;
  c.spec = m.text("spec");
  parse_hash(m, "spec_fnv1a64", c.spec_fnv1a64);
  c.measurements = m.text("measurements");
  parse_hash(m, "measurements_fnv1a64", c.measurements_fnv1a64);
  c.workload = m.text("workload");
  parse_fitted(m, c);
  parse_values(m, c);
  for (int i = 0; i < kFittedConstants; ++i)
    if (c.fitted[i] && std::fabs(current[i] - c.values[i]) > 1e-9 * std::max(std::fabs(c.values[i]), 1e-300))
      c.changed += (c.changed.empty() ? "" : ", ") + std::string(fitted_constant_key(static_cast<FittedConstant>(i)));
  // 1 for orthogonal columns; Belsley, Kuh & Welsch read > 30 as strong collinearity. 1e12: a
  // figure beyond double precision's reach is a corrupt file, not a fit.
  c.condition_index = m.number("condition_index", 1.0, 1e12);
  c.rms_relative_error = m.number("rms_relative_error", 0.0, 1e6);
  constexpr double kMaxStepS = 86400;  // a step of more than a day is a unit typo (as in the CSV)
  for (ConfigMap r : m.map_list("rows")) {
    CalibrationRow row;
    row.line = r.integer("line", 1, static_cast<int64_t>(1) << 31);
    row.batch = r.integer("batch", 1, limits::kBatch);
    row.measured_s = r.quantity("measured", Dim::Seconds, 1e-12, kMaxStepS);
    row.spec_s = r.quantity("spec", Dim::Seconds, 1e-12, kMaxStepS);
    row.calibrated_s = r.quantity("calibrated", Dim::Seconds, 1e-12, kMaxStepS);
    r.check_unknown();
    c.rows.push_back(row);
  }
  m.check_unknown();
  return c;
}

std::string constants_provenance(const CalibrationSpec& c) {
  if (!c.present) return "spec-only";
  return "calibrated (from " + c.file + ": " + c.fitted_text() + " fitted to " + resolve_relative(c.file, c.measurements) +
         (c.changed.empty() ? "" : "; changed since: " + c.changed + ", so not the fitted device") + ")";
}

}  // namespace kp
