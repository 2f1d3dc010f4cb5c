#include "tools/study/study_sweep.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/hw_spec.h"
#include "core/units.h"
#include "core/workload_spec.h"

namespace kp {
namespace {

constexpr Dim kDims[] = {Dim::Bytes,   Dim::BytesPerSecond, Dim::Hertz,  Dim::Seconds,
                         Dim::Joules, Dim::FlopsPerSecond, Dim::Dollars};

// "25 GB/s" -> 25 and "GB/s"; "64" -> 64 and "". False if it does not start with a number.
bool split_number(const std::string& text, double& number, std::string& unit) {
  const char* begin = text.c_str();
  char* end = nullptr;
  number = std::strtod(begin, &end);
  if (end == begin || !std::isfinite(number)) return false;
  unit = text.substr(static_cast<size_t>(end - begin));
  const auto first = unit.find_first_not_of(' ');
  unit = first == std::string::npos ? "" : unit.substr(first);
  return true;
}

// The SI value of `text` in the first dimension that accepts it; false if none does.
bool quantity_any(const std::string& text, Dim& dim, double& si) {
  for (Dim d : kDims) {
    try {
      si = parse_quantity(text, d);
      dim = d;
      return true;
    } catch (const UnitError&) {
    }
  }
  return false;
}

// The first problem of `file` with `assignment` applied (hardware or workload file), if any.
bool check_value(const std::string& file, const std::string& assignment, bool workload, Diagnostic& out) {
  try {
    ConfigDoc doc = ConfigDoc::load(file);
    doc.apply_override(assignment);
    if (workload) (void)parse_workload(doc); else (void)parse_hardware(doc);
  } catch (const ConfigError& e) {
    out = e.diagnostics().front();
    return false;
  }
  return true;
}

class AxisParser {
 public:
  AxisParser(ConfigMap& root, std::vector<SweepCheck>& checks) : m_root(root), m_checks(checks) {}

  // False (with a diagnostic) if the axis is unusable.
  bool parse(const YAML::Node& key_node, const YAML::Node& value_node, SweepAxis& axis) {
    axis.key = key_node.Scalar();
    const std::string where = "sweep." + axis.key;
    if (value_node.IsSequence()) {
      if (value_node.size() == 0) return fail(value_node, where, "expected a non-empty list of values");
      for (const YAML::Node& v : value_node) {
        if (!v.IsScalar()) return fail(v, where, "expected a single value in the list, got a list or map");
        axis.values.push_back(v.Scalar());
      }
      for (size_t i = 0; i < axis.values.size(); ++i)
        if (!validate(key_node, value_node[i], axis.key, axis.values[i])) return false;
      return true;
    }
    if (value_node.IsMap()) return parse_range(key_node, value_node, axis);
    return fail(value_node, where, "expected a list of values or a range {from, to, factor}");
  }

 private:
  bool fail(const YAML::Node& at, const std::string& key, const std::string& message) {
    m_root.error_at(at, key, message);
    return false;
  }

  bool parse_range(const YAML::Node& key_node, const YAML::Node& range, SweepAxis& axis) {
    const std::string where = "sweep." + axis.key;
    const YAML::Node from = range["from"], to = range["to"];
    for (const char* k : {"from", "to"})
      if (!range[k] || !range[k].IsScalar()) return fail(range, where, std::string("range: missing ") + k + " (a value)");
    const bool has_factor = range["factor"].IsDefined(), has_step = range["step"].IsDefined();
    for (auto it = range.begin(); it != range.end(); ++it) {
      const std::string k = it->first.Scalar();
      if (k != "from" && k != "to" && k != "factor" && k != "step")
        return fail(it->first, where + "." + k, "unknown key in a range (known: from, to, factor, step)");
    }
    if (has_factor == has_step) return fail(range, where, "range: expected exactly one of factor (> 1) or step (> 0)");
    const YAML::Node by = range[has_factor ? "factor" : "step"];
    double by_value = 0;
    std::string by_unit;
    if (!by.IsScalar() || !split_number(by.Scalar(), by_value, by_unit) || !by_unit.empty() ||
        (has_factor ? by_value <= 1 : by_value <= 0))
      return fail(by, where + (has_factor ? ".factor" : ".step"),
                  has_factor ? "expected a plain number > 1, got \"" + (by.IsScalar() ? by.Scalar() : "") + "\""
                             : "expected a plain number > 0 in the unit of from, got \"" +
                                   (by.IsScalar() ? by.Scalar() : "") + "\"");
    double from_num = 0, to_num = 0;
    std::string from_unit, to_unit;
    if (!split_number(from.Scalar(), from_num, from_unit))
      return fail(from, where + ".from", "expected a number with its unit, got \"" + from.Scalar() + "\"");
    if (!split_number(to.Scalar(), to_num, to_unit))
      return fail(to, where + ".to", "expected a number with its unit, got \"" + to.Scalar() + "\"");
    double to_in_from = to_num;
    if (!from_unit.empty() || !to_unit.empty()) {
      Dim dim_from = Dim::Bytes, dim_to = Dim::Bytes;
      double si_from = 0, si_to = 0;
      if (from_unit.empty() || !quantity_any(from.Scalar(), dim_from, si_from))
        return fail(from, where + ".from", "\"" + from.Scalar() + "\" is not a quantity with a known unit");
      if (to_unit.empty() || !quantity_any(to.Scalar(), dim_to, si_to) || dim_to != dim_from)
        return fail(to, where + ".to", std::string("expected ") + dim_name(dim_from) + " like from (" +
                                           dim_units(dim_from) + "), got \"" + to.Scalar() + "\"");
      to_in_from = si_to / (si_from / from_num);
    }
    if (from_num <= 0 && has_factor) return fail(from, where + ".from", "a geometric range needs from > 0");
    if (to_in_from < from_num) return fail(to, where + ".to", "expected to >= from");
    axis.values = expand_range(from_num, to_in_from, has_factor ? by_value : 0, has_step ? by_value : 0, from_unit);
    if (axis.values.size() > 100000) return fail(range, where, "range has more than 100000 values");
    for (const std::string& v : axis.values)
      if (!validate(key_node, from, axis.key, v)) return false;
    return true;
  }

  // Each value is checked later (run_sweep_checks), once the study's size is known to be sane.
  bool validate(const YAML::Node& key_node, const YAML::Node& value_node, const std::string& key,
                const std::string& value) {
    m_checks.push_back({key_node, value_node, key, value, m_axis});
    return true;
  }

  ConfigMap& m_root;
  std::vector<SweepCheck>& m_checks;

 public:
  size_t m_axis = 0;  // the axis being parsed, counted over the whole sweep
};

// Applies key=value to every base file it concerns, like --set; a problem becomes a diagnostic at
// the key (unknown key / no such map) or at the value node. False on the first problem.
bool run_check(ConfigMap& root, const SweepCheck& c, const std::vector<std::string>& hw,
               const std::vector<std::string>& wl) {
  const bool workload = c.key.rfind("workload.", 0) == 0;
  const std::string assignment = (workload ? c.key.substr(9) : c.key) + "=" + c.value;
  for (const std::string& file : workload ? wl : hw) {
    Diagnostic d;
    if (check_value(file, assignment, workload, d)) continue;
    // The base file itself is broken: that is its own error, at its own position.
    if (d.origin.rfind("--set ", 0) != 0) {
      root.report(d);
      return false;
    }
    const bool about_key = d.message.rfind("unknown key", 0) == 0 || d.message.rfind("no such map", 0) == 0;
    const std::string msg = (about_key ? d.message : "value \"" + c.value + "\": " + d.message) + " (in " + file + ")";
    root.error_at(about_key ? c.key_node : c.value_node, "sweep." + c.key, msg);
    return false;
  }
  return true;
}

}  // namespace

std::vector<std::string> expand_range(double from, double to, double factor, double step,
                                      const std::string& unit) {
  std::vector<std::string> out;
  const double limit = to * (1 + 1e-9) + (to == 0 ? 1e-12 : 0);
  for (int64_t i = 0;; ++i) {
    // From `from` each time, not by accumulation, so 0.1-steps do not drift.
    const double v = factor > 0 ? from * std::pow(factor, static_cast<double>(i)) : from + step * static_cast<double>(i);
    if (v > limit || out.size() > 100000) break;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.10g", v);
    out.push_back(unit.empty() ? std::string(buf) : std::string(buf) + " " + unit);
  }
  return out;
}

void run_sweep_checks(ConfigMap& root, const std::vector<SweepCheck>& checks, const std::vector<std::string>& hardware_files,
                      const std::vector<std::string>& workload_files) {
  size_t failed_axis = 0;  // axes count from 1: an axis stops at its first bad value
  for (const SweepCheck& c : checks) {
    if (c.axis == failed_axis) continue;
    if (!run_check(root, c, hardware_files, workload_files)) failed_axis = c.axis;
  }
}

std::vector<SweepGroup> parse_sweep(ConfigMap& root, std::vector<SweepCheck>& checks) {
  std::vector<SweepGroup> groups;
  root.describe("sweep", "map of dotted key to values or {from, to, factor | step}, or a list of zip:/cross: groups",
                false);
  const YAML::Node sweep = root.node()["sweep"];
  if (!sweep || sweep.IsNull()) return groups;
  AxisParser axes(root, checks);
  // One group from a map of axes; false if the map is unusable.
  auto parse_group = [&](const YAML::Node& map, bool zip) {
    SweepGroup g;
    g.zip = zip;
    if (!map.IsMap() || map.size() == 0) {
      root.error_at(map, "sweep", "expected a non-empty map of dotted keys to values or ranges");
      return;
    }
    for (auto it = map.begin(); it != map.end(); ++it) {
      SweepAxis axis;
      ++axes.m_axis;
      if (!axes.parse(it->first, it->second, axis)) continue;
      bool twice = false;
      for (const SweepGroup& other : groups)
        for (const SweepAxis& a : other.axes) twice = twice || a.key == axis.key;
      for (const SweepAxis& a : g.axes) twice = twice || a.key == axis.key;
      if (twice) root.error_at(it->first, "sweep." + axis.key, "key swept twice");
      if (zip && !g.axes.empty() && g.axes.front().values.size() != axis.values.size())
        root.error_at(it->second, "sweep." + axis.key,
                      "zip: expected " + std::to_string(g.axes.front().values.size()) + " values like " +
                          g.axes.front().key + ", got " + std::to_string(axis.values.size()));
      g.axes.push_back(std::move(axis));
    }
    groups.push_back(std::move(g));
  };
  if (sweep.IsMap()) {
    parse_group(sweep, false);
  } else if (sweep.IsSequence() && sweep.size() > 0) {
    for (const YAML::Node& item : sweep) {
      if (item.IsMap() && item.size() == 1 && (item["zip"] || item["cross"])) {
        parse_group(item.begin()->second, item["zip"].IsDefined());
      } else {
        parse_group(item, false);
      }
    }
  } else {
    root.error_at(sweep, "sweep", "expected a map of dotted keys (crossed) or a list of zip:/cross: groups");
  }
  return groups;
}

}  // namespace kp
