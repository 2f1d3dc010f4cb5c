#pragma once
// A YAML document that remembers where every node came from. Contract: load() reads a file and,
// when its root has `base: other.yaml` (relative to the file), deep-merges it over that base
// (maps merge key by key, anything else replaces); apply_override("a.b=v") replaces one value as
// if it had been written in the file. where() gives the origin and 1-based position of a node, so
// errors point at the file (or the --set argument) that wrote the offending value.
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "core/config_error.h"

namespace kp {

// `path` as written in `file`: absolute paths stay, relative ones are taken from file's folder.
std::string resolve_relative(const std::string& file, const std::string& path);

// `d` with the position of its key filled in when it has none: the key is looked up (dotted,
// through `base:` files) in the YAML file `d.origin`. Unchanged when the file does not load or has
// no such key. For errors found after parsing (a model that does not fit device memory), which
// layers below the CLI raise with the file and key only (they never read YAML).
Diagnostic locate_key(Diagnostic d);

class ConfigDoc {
 public:
  // Throws ConfigError for a missing file, a YAML syntax error, or a `base:` cycle.
  static ConfigDoc load(const std::string& path);
  // Parses a YAML text held in memory (tests, embedded defaults); `origin` names it in errors.
  static ConfigDoc parse(const std::string& text, const std::string& origin);

  // "dotted.key=value": value is parsed as YAML. Throws ConfigError citing the argument.
  void apply_override(const std::string& assignment);
  // A copy that shares no node with this one (copying a ConfigDoc shares its tree), so overrides
  // applied to it leave this document as it was; every node keeps the origin and position at()
  // gives it here. A study parses each base file once and applies a design's overrides to a copy:
  // re-parsing the text per design was ~35% of a 10^4-design study. Linear in the nodes when this
  // document is itself a deep copy, quadratic otherwise (copy a loaded file once, then copy that).
  ConfigDoc deep_copy() const;

  const YAML::Node& root() const { return m_root; }
  const std::string& path() const { return m_path; }
  // A diagnostic positioned at `node` (or at the document when the node is unknown).
  Diagnostic at(const YAML::Node& node, const std::string& key, const std::string& message) const;

 private:
  void track(const YAML::Node& node, const std::string& origin);
  // Tracks the entry `key` of `map` as written at `key_mark` of `origin` (a merged key is a new
  // node that yaml-cpp made without a position).
  void track_entry(const YAML::Node& map, const std::string& key, const std::string& origin,
                   const YAML::Mark& key_mark);
  void merge_into(YAML::Node base, const YAML::Node& over, const std::string& origin);
  static YAML::Node read_file(const std::string& path, std::vector<std::string>& chain,
                              ConfigDoc& doc);
  // Gives each node of `copy` (a clone of `node`) the origin `node` has here, in `to`.
  void track_copy(const YAML::Node& node, const YAML::Node& copy, ConfigDoc& to) const;

  YAML::Node m_root;
  std::string m_path;
  struct Origin {
    YAML::Node node;
    std::string origin;
    YAML::Mark mark;
  };
  std::vector<Origin> m_origins;
  // Set by deep_copy(): m_origins holds one entry per node, in track_copy's order (a node, then
  // each key and value of a map, each element of a sequence), so a further copy maps by index.
  bool m_one_per_node = false;
};

}  // namespace kp
