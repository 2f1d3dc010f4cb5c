#pragma once
// Typed, validating access to one YAML map. Contract: every getter records a Diagnostic (and
// returns a harmless placeholder) instead of throwing, so one pass reports all errors of a file;
// finish() reports keys nobody asked for (typos must never fall back to a default) and throws
// the collected ConfigError if anything went wrong. A missing key is reported at its parent map.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/config_doc.h"
#include "core/key_log.h"
#include "core/units.h"

namespace kp {

class ConfigMap {
 public:
  // The root map of a document; `prefix` is prepended to reported keys (may be empty).
  ConfigMap(const ConfigDoc& doc, const YAML::Node& node, const std::string& prefix = "");

  bool has(const std::string& key) const;
  // Marks a key the caller reads itself (e.g. a list of file names) as known; describe() also
  // names its type for the key reference (core/key_log.h), e.g. "list of file names".
  void mark_used(const std::string& key) { describe(key, "value", false); }
  void describe(const std::string& key, const std::string& type, bool required);
  // Required quantity with a unit (see units.h) in [min_si, max_si], min_si > 0; the bounds are
  // plausibility limits that keep the models' arithmetic finite and are stated in the error.
  double quantity(const std::string& key, Dim dim, double min_si, double max_si);
  double quantity_or(const std::string& key, Dim dim, double min_si, double max_si, double fallback);
  // A quantity that may be zero (e.g. a latency), at most max_si; negative is still an error.
  double quantity_nonneg_or(const std::string& key, Dim dim, double max_si, double fallback);
  // An integer in [min_value, max_value]; max_value is a plausibility limit (core/limits.h).
  int64_t integer(const std::string& key, int64_t min_value, int64_t max_value);
  int64_t integer_or(const std::string& key, int64_t min_value, int64_t max_value, int64_t fallback);
  double number(const std::string& key, double min_value, double max_value);
  double number_or(const std::string& key, double min_value, double max_value, double fallback);
  bool boolean_or(const std::string& key, bool fallback);
  std::string text(const std::string& key);
  std::string text_or(const std::string& key, const std::string& fallback);
  // Index into `options`; an unknown value lists the known ones.
  int choice(const std::string& key, std::initializer_list<const char*> options);
  int choice_or(const std::string& key, std::initializer_list<const char*> options, int fallback);
  std::vector<int64_t> integer_list(const std::string& key, int64_t min_value, int64_t max_value);
  ConfigMap map(const std::string& key);
  bool has_map(const std::string& key) const;
  std::vector<ConfigMap> map_list(const std::string& key);
  // A map node the caller found itself (e.g. an item of a list that mixes names and maps), named
  // dotted(key) and sharing this map's errors.
  ConfigMap child(const YAML::Node& node, const std::string& key);
  // A scalar that stays a string for a caller-side parse (e.g. a file name).
  const YAML::Node& node() const { return m_node; }
  const ConfigDoc& doc() const { return *m_doc; }
  std::string dotted(const std::string& key) const;
  const std::string& prefix() const { return m_prefix; }  // this map's own dotted key

  void error(const std::string& key, const std::string& message);
  void error_at(const YAML::Node& node, const std::string& key, const std::string& message);
  // Adds a diagnostic made elsewhere (e.g. of another file) to this map's sink.
  void report(const Diagnostic& d) { m_sink->push_back(d); }
  // Reports unknown keys of this map (only; children check theirs).
  void check_unknown();
  // check_unknown() on this map, then throws ConfigError if any map sharing the sink has errors.
  void finish();
  bool ok() const { return m_sink->empty(); }
  size_t error_count() const { return m_sink->size(); }

 private:
  ConfigMap(const ConfigDoc& doc, const YAML::Node& node, std::string prefix,
            std::shared_ptr<std::vector<Diagnostic>> sink);
  YAML::Node scalar(const std::string& key);
  // Reports the key to the key log, if one is set (core/key_log.h).
  void note(const std::string& key, const std::string& type, const std::string& range,
            const std::string& fallback, bool required) const;
  // The value of `n` in [min_si, max_si] (min_si 0: >= 0), or `fallback` with an error.
  double checked_quantity(const std::string& key, const YAML::Node& n, Dim dim, double min_si,
                          double max_si, double fallback);

  const ConfigDoc* m_doc;
  YAML::Node m_node;
  std::string m_prefix;
  std::shared_ptr<std::vector<Diagnostic>> m_sink;
  std::set<std::string> m_used;
  bool m_silent = false;  // a stand-in for a map that was missing or mistyped: already reported
};

}  // namespace kp
