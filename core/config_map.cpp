#include "core/config_map.h"

#include <cmath>
#include <cstdio>

namespace kp {
ConfigMap::ConfigMap(const ConfigDoc& doc, const YAML::Node& node, const std::string& prefix)
    : ConfigMap(doc, node, prefix, std::make_shared<std::vector<Diagnostic>>()) {}

ConfigMap::ConfigMap(const ConfigDoc& doc, const YAML::Node& node, std::string prefix,
                     std::shared_ptr<std::vector<Diagnostic>> sink)
    : m_doc(&doc), m_node(node), m_prefix(std::move(prefix)), m_sink(std::move(sink)) {}

void ConfigMap::note(const std::string& key, const std::string& type, const std::string& range,
                     const std::string& fallback, bool required) const {
  if (KeyLog* log = key_log()) log->note(KeyUse{m_doc->path(), dotted(key), type, range, fallback, required});
}

void ConfigMap::describe(const std::string& key, const std::string& type, bool required) {
  m_used.insert(key);
  if (key_log()) note(key, type, "", "", required);
}

std::string ConfigMap::dotted(const std::string& key) const {
  return m_prefix.empty() ? key : m_prefix + "." + key;
}

void ConfigMap::error(const std::string& key, const std::string& message) {
  if (m_silent) return;
  const YAML::Node child = m_node.IsMap() ? m_node[key] : YAML::Node();
  m_sink->push_back(m_doc->at(child ? child : m_node, dotted(key), message));
}

void ConfigMap::error_at(const YAML::Node& node, const std::string& key, const std::string& message) {
  if (m_silent) return;
  m_sink->push_back(m_doc->at(node, dotted(key), message));
}

bool ConfigMap::has(const std::string& key) const {
  return m_node.IsMap() && m_node[key].IsDefined() && !m_node[key].IsNull();
}

YAML::Node ConfigMap::scalar(const std::string& key) {
  m_used.insert(key);
  if (!has(key)) {
    error(key, "missing required key");
    return YAML::Node(YAML::NodeType::Undefined);
  }
  YAML::Node n = m_node[key];
  if (!n.IsScalar()) {
    error(key, "expected a single value, got a " + std::string(n.IsMap() ? "map" : "list"));
    return YAML::Node(YAML::NodeType::Undefined);
  }
  return n;
}

double ConfigMap::checked_quantity(const std::string& key, const YAML::Node& n, Dim dim, double min_si,
                                   double max_si, double fallback) {
  try {
    const double v = parse_quantity(n.Scalar(), dim);
    if (v < min_si || v > max_si || (min_si == 0 && v < 0) || (min_si > 0 && !(v > 0))) {
      const std::string low = min_si > 0 ? format_quantity(min_si, dim) : "0";
      error(key, std::string("expected ") + dim_name(dim) + " in [" + low + ", " + format_quantity(max_si, dim) +
                     "], got \"" + n.Scalar() + "\"");
      return fallback;
    }
    return v;
  } catch (const UnitError& e) {
    error(key, e.what());
    return fallback;
  }
}

double ConfigMap::quantity_nonneg_or(const std::string& key, Dim dim, double max_si, double fallback) {
  m_used.insert(key);
  if (key_log())
    note(key, quantity_type(dim), "[0, " + format_quantity(max_si, dim) + "]", quantity_text(fallback, dim), false);
  if (!has(key)) return fallback;
  YAML::Node n = scalar(key);
  if (!n.IsDefined()) return fallback;
  return checked_quantity(key, n, dim, 0.0, max_si, fallback);
}

double ConfigMap::quantity(const std::string& key, Dim dim, double min_si, double max_si) {
  if (key_log())
    note(key, quantity_type(dim), "[" + quantity_text(min_si, dim) + ", " + format_quantity(max_si, dim) + "]", "",
         true);
  YAML::Node n = scalar(key);
  if (!n.IsDefined()) return min_si;
  return checked_quantity(key, n, dim, min_si, max_si, min_si);
}

double ConfigMap::quantity_or(const std::string& key, Dim dim, double min_si, double max_si, double fallback) {
  m_used.insert(key);
  if (key_log())
    note(key, quantity_type(dim), "[" + quantity_text(min_si, dim) + ", " + format_quantity(max_si, dim) + "]",
         fallback > 0 ? format_quantity(fallback, dim) : "none", false);
  KeyLogPause pause;
  return has(key) ? quantity(key, dim, min_si, max_si) : fallback;
}

int64_t ConfigMap::integer(const std::string& key, int64_t min_value, int64_t max_value) {
  if (key_log()) note(key, "integer", int_range(min_value, max_value), "", true);
  YAML::Node n = scalar(key);
  if (!n.IsDefined()) return min_value;
  const std::string& s = n.Scalar();
  int64_t v = 0;
  const std::string range = "expected an integer in [" + std::to_string(min_value) + ", " +
                            format_limit(max_value) + "], got \"" + s + "\"";
  if (!parse_int64(s, v) || v < min_value || v > max_value) {
    error(key, range);
    return min_value;
  }
  return v;
}

int64_t ConfigMap::integer_or(const std::string& key, int64_t min_value, int64_t max_value, int64_t fallback) {
  m_used.insert(key);
  if (key_log()) note(key, "integer", int_range(min_value, max_value), std::to_string(fallback), false);
  KeyLogPause pause;
  return has(key) ? integer(key, min_value, max_value) : fallback;
}

double ConfigMap::number(const std::string& key, double min_value, double max_value) {
  if (key_log()) note(key, "number", "[" + number_text(min_value) + ", " + number_text(max_value) + "]", "", true);
  YAML::Node n = scalar(key);
  if (!n.IsDefined()) return min_value;
  const std::string& s = n.Scalar();
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  char range_buf[64];
  std::snprintf(range_buf, sizeof range_buf, "[%.10g, %.10g]", min_value, max_value);
  const std::string range = range_buf;
  if (s.empty() || *end != '\0' || !std::isfinite(v)) {
    error(key, "expected a number in " + range + ", got \"" + s + "\"");
    return min_value;
  }
  if (v < min_value || v > max_value) {
    error(key, "expected a number in " + range + ", got \"" + s + "\"");
    return min_value;
  }
  return v;
}

double ConfigMap::number_or(const std::string& key, double min_value, double max_value,
                            double fallback) {
  m_used.insert(key);
  if (key_log())
    note(key, "number", "[" + number_text(min_value) + ", " + number_text(max_value) + "]", number_text(fallback),
         false);
  KeyLogPause pause;
  return has(key) ? number(key, min_value, max_value) : fallback;
}

bool ConfigMap::boolean_or(const std::string& key, bool fallback) {
  m_used.insert(key);
  if (key_log()) note(key, "true or false", "", fallback ? "true" : "false", false);
  if (!has(key)) return fallback;
  YAML::Node n = scalar(key);
  if (!n.IsDefined()) return fallback;
  const std::string& s = n.Scalar();
  if (s == "true") return true;
  if (s == "false") return false;
  error(key, "expected true or false, got \"" + s + "\"");
  return fallback;
}

std::string ConfigMap::text(const std::string& key) {
  if (key_log()) note(key, "text", "", "", true);
  YAML::Node n = scalar(key);
  return n.IsDefined() ? n.Scalar() : std::string();
}

std::string ConfigMap::text_or(const std::string& key, const std::string& fallback) {
  m_used.insert(key);
  if (key_log()) note(key, "text", "", fallback.empty() ? "none" : fallback, false);
  KeyLogPause pause;
  return has(key) ? text(key) : fallback;
}

int ConfigMap::choice(const std::string& key, std::initializer_list<const char*> options) {
  if (key_log()) note(key, "one of " + options_text(options), "", "", true);
  YAML::Node n = scalar(key);
  if (!n.IsDefined()) return 0;
  int i = 0;
  std::string known;
  for (const char* o : options) {
    if (n.Scalar() == o) return i;
    known += (i ? ", " : "") + std::string(o);
    ++i;
  }
  error(key, "expected one of " + known + ", got \"" + n.Scalar() + "\"");
  return 0;
}

int ConfigMap::choice_or(const std::string& key, std::initializer_list<const char*> options,
                         int fallback) {
  m_used.insert(key);
  if (key_log()) note(key, "one of " + options_text(options), "", options.begin()[fallback], false);
  KeyLogPause pause;
  return has(key) ? choice(key, options) : fallback;
}

std::vector<int64_t> ConfigMap::integer_list(const std::string& key, int64_t min_value, int64_t max_value) {
  m_used.insert(key);
  if (key_log()) note(key, "list of integers", int_range(min_value, max_value), "", true);
  std::vector<int64_t> out;
  if (!has(key)) {
    error(key, "missing required key");
    return out;
  }
  YAML::Node n = m_node[key];
  if (!n.IsSequence() || n.size() == 0) {
    error(key, "expected a non-empty list of integers");
    return out;
  }
  for (const YAML::Node& item : n) {
    int64_t v = 0;
    const std::string s = item.IsScalar() ? item.Scalar() : std::string();
    if (!parse_int64(s, v) || v < min_value || v > max_value) {
      error_at(item, key, "expected integers in [" + std::to_string(min_value) + ", " + format_limit(max_value) +
                              "], got \"" + s + "\"");
      continue;
    }
    out.push_back(v);
  }
  return out;
}

bool ConfigMap::has_map(const std::string& key) const { return has(key) && m_node[key].IsMap(); }

ConfigMap ConfigMap::map(const std::string& key) {
  m_used.insert(key);
  if (key_log()) note(key, "map", "", "", false);
  if (!has(key) || !m_node[key].IsMap()) {
    error(key, has(key) ? "expected a map" : "missing required key (a map)");
    ConfigMap stand_in(*m_doc, YAML::Node(YAML::NodeType::Map), dotted(key), m_sink);
    stand_in.m_silent = true;
    return stand_in;
  }
  YAML::Node n = m_node[key];
  return ConfigMap(*m_doc, n, dotted(key), m_sink);
}

ConfigMap ConfigMap::child(const YAML::Node& node, const std::string& key) {
  return ConfigMap(*m_doc, node, dotted(key), m_sink);
}

std::vector<ConfigMap> ConfigMap::map_list(const std::string& key) {
  m_used.insert(key);
  if (key_log()) note(key, "list of maps", "", "", true);
  std::vector<ConfigMap> out;
  if (!has(key) || !m_node[key].IsSequence() || m_node[key].size() == 0) {
    error(key, has(key) ? "expected a non-empty list of maps" : "missing required key (a list)");
    return out;
  }
  size_t i = 0;
  for (const YAML::Node& item : m_node[key]) {
    const std::string name = dotted(key) + "[" + std::to_string(i++) + "]";
    if (!item.IsMap()) {
      m_sink->push_back(m_doc->at(item, name, "expected a map"));
      continue;
    }
    out.push_back(ConfigMap(*m_doc, item, name, m_sink));
  }
  return out;
}

void ConfigMap::check_unknown() {
  if (!m_node.IsMap() || m_silent) return;
  for (auto it = m_node.begin(); it != m_node.end(); ++it) {
    const std::string key = it->first.IsScalar() ? it->first.Scalar() : "?";  // `[a]: 1` is unknown too
    if (m_used.count(key)) continue;
    std::string known;
    for (const std::string& k : m_used) known += (known.empty() ? "" : ", ") + k;
    m_sink->push_back(m_doc->at(it->first, dotted(key),
                                "unknown key (known here: " + known + ")"));
  }
}

void ConfigMap::finish() {
  check_unknown();
  if (!m_sink->empty()) throw ConfigError(*m_sink);
}

}  // namespace kp
