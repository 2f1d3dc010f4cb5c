#include "tools/fit_extras.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ostream>

#include "core/config_error.h"
#include "core/json_writer.h"
#include "core/number_format.h"
#include "models/step_curve/csv_table.h"
#include "models/step_curve/curve_csv.h"

namespace kp {
namespace {

void json_exponent(JsonWriter& j, const std::string& key, const ScalingExponent& e) {
  j.key(key).begin_object().key("value").value(e.value).key("lo").value(e.lo).key("hi").value(e.hi);
  j.key("r2").value(e.r2).key("linear_inside").value(e.contains(1.0)).key("sqrt_inside").value(e.contains(0.5));
  j.end_object();
}

}  // namespace

std::string num(double v, const char* fmt) { return format_double(v, fmt); }

void print_extras_json(JsonWriter& j, const CurveExtras& x) {
  if (!x.protocol.empty()) j.key("protocol").value(x.protocol);
  if (!x.b_simple.empty()) {
    char* end = nullptr;
    const double v = std::strtod(x.b_simple.c_str(), &end);
    j.key("b_simple");
    if (end != x.b_simple.c_str()) j.value(v); else j.null();
    j.key("b_simple_method").value(x.b_simple_method);
  }
  if (!x.has_scaling) return;
  j.key("lr_scaling").begin_object().key("best").begin_array();
  for (const BestMetaparameters& m : x.scaling.best)
    j.begin_object().key("batch").value(m.batch).key("steps").value(m.steps).key("trial").value(static_cast<int64_t>(m.trial))
        .key("learning_rate").value(m.learning_rate).key("momentum").value(m.momentum).end_object();
  j.end_array();
  json_exponent(j, "lr_exponent", x.scaling.lr);
  json_exponent(j, "effective_lr_exponent", x.scaling.effective_lr);
  j.end_object();
}

void print_extras_text(std::ostream& out, const StepLawFit& fit, const CurveExtras& x) {
  if (!x.protocol.empty()) out << "protocol: " << x.protocol << "\n";
  if (!x.b_simple.empty()) {
    out << "gradient noise scale B_simple = " << x.b_simple << " samples (fitted B_crit "
        << num(fit.b_crit.value, "%.0f") << " [" << num(fit.b_crit.lo, "%.0f") << ", "
        << num(fit.b_crit.hi, "%.0f") << "])\n";
    if (!x.b_simple_method.empty()) out << "  " << x.b_simple_method << "\n";
  }
  if (!x.has_scaling) {
    if (!x.scaling_note.empty()) out << "learning-rate scaling: " << x.scaling_note << "\n";
    return;
  }
  auto verdict = [](const ScalingExponent& e) {
    std::string v = e.contains(1.0) ? "linear (1) inside" : "linear (1) outside";
    v += e.contains(0.5) ? ", square root (0.5) inside" : ", square root (0.5) outside";
    return v;
  };
  const ScalingExponent& a = x.scaling.lr;
  const ScalingExponent& b = x.scaling.effective_lr;
  out << "best metaparameters per batch size (fewest steps; ties: lowest trial):\n"
      << "  batch      steps  trial          lr   momentum   lr/(1-momentum)\n";
  for (const BestMetaparameters& m : x.scaling.best) {
    char line[160];
    std::snprintf(line, sizeof line, "  %6.0f %10.0f %6d %11.4g %10.5g %17.4g\n", m.batch, m.steps,
                  m.trial, m.learning_rate, m.momentum, m.learning_rate / (1.0 - m.momentum));
    out << line;
  }
  out << "scaling exponent of lr* vs M (log-log least squares, 95% t interval): " << num(a.value, "%.3f")
      << " [" << num(a.lo, "%.3f") << ", " << num(a.hi, "%.3f") << "], R^2 " << num(a.r2, "%.3f")
      << ": " << verdict(a) << "\n";
  out << "scaling exponent of lr*/(1-momentum*) vs M: " << num(b.value, "%.3f") << " ["
      << num(b.lo, "%.3f") << ", " << num(b.hi, "%.3f") << "], R^2 " << num(b.r2, "%.3f") << ": "
      << verdict(b) << "\n";
}

CurveExtras read_curve_extras(const std::string& path) {
  CurveExtras x;
  const auto prov = read_curve_provenance(path);
  auto get = [&](const char* k) {
    const auto it = prov.find(k);
    return it == prov.end() ? std::string() : it->second;
  };
  x.b_simple = get("b_simple");
  x.b_simple_method = get("b_simple_method");
  x.protocol = get("protocol_name");
  const CsvTable header = read_csv_table(path);
  if (header.find("learning_rate") >= 0 && header.find("momentum") >= 0) {
    try {
      x.scaling = fit_lr_scaling(read_trial_rows(path), path);
      x.has_scaling = true;
    } catch (const ConfigError& e) {
      x.scaling_note = e.what();
    }
  }
  return x;
}

}  // namespace kp
