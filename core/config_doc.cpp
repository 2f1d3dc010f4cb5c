#include "core/config_doc.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/yaml_checks.h"

namespace kp {
namespace {

// The whole file, refused before parsing when it is too large or not text.
std::string read_text(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw ConfigError(path, "is a folder, expected a YAML file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path, "cannot open file (does it exist?)");
  std::string text(kMaxYamlBytes + 1, '\0');
  in.read(&text[0], static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (in.bad()) throw ConfigError(path, "cannot read file");
  check_yaml_text(text, path);
  return text;
}

// Parses `text` and checks its tree (duplicate keys, complex keys, alias bombs): ConfigError.
YAML::Node load_checked(const std::string& text, const std::string& origin, bool positions) {
  YAML::Node node;
  try {
    node = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    if (!positions) throw ConfigError(origin, "value is not valid YAML: " + e.msg);
    throw ConfigError({Diagnostic{origin, e.mark.line + 1, e.mark.column + 1, "", e.msg}});
  }
  std::vector<Diagnostic> problems;
  check_yaml_tree(node, origin, problems);
  if (!positions)
    for (Diagnostic& d : problems) d.line = d.col = 0;
  if (!problems.empty()) throw ConfigError(problems);
  return node;
}

}  // namespace

std::string resolve_relative(const std::string& file, const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  const auto slash = file.find_last_of('/');
  if (slash == std::string::npos) return path;
  // Normalised so that reports name studies/../hw_configs/x.yaml as hw_configs/x.yaml.
  return std::filesystem::path(file.substr(0, slash + 1) + path).lexically_normal().string();
}

// Keys of `over` win. Scalars and sequences replace as a whole: merging lists element-wise
// surprises people. Assigning into a map makes new node handles, so the entry is tracked again
// with the origin of `over` (at() searches newest first).
void ConfigDoc::merge_into(YAML::Node base, const YAML::Node& over, const std::string& origin) {
  for (auto it = over.begin(); it != over.end(); ++it) {
    const std::string key = it->first.Scalar();
    YAML::Node existing = base[key];
    if (existing.IsMap() && it->second.IsMap()) {
      merge_into(existing, it->second, origin);
    } else {
      base[key] = it->second;
      track_entry(base, key, origin, it->first.Mark());
    }
  }
}

void ConfigDoc::track_entry(const YAML::Node& map, const std::string& key, const std::string& origin,
                            const YAML::Mark& key_mark) {
  m_one_per_node = false;  // the tree changed under the entries' order
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (it->first.Scalar() != key) continue;
    m_origins.push_back({it->first, origin, key_mark});
    track(it->second, origin);
  }
}

void ConfigDoc::track(const YAML::Node& node, const std::string& origin) {
  m_origins.push_back({node, origin, node.Mark()});
  if (node.IsMap()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      m_origins.push_back({it->first, origin, it->first.Mark()});
      track(it->second, origin);
    }
  } else if (node.IsSequence()) {
    for (const YAML::Node& child : node) track(child, origin);
  }
}

YAML::Node ConfigDoc::read_file(const std::string& path, std::vector<std::string>& chain,
                                ConfigDoc& doc) {
  if (std::find(chain.begin(), chain.end(), path) != chain.end())
    throw ConfigError(path, "base: files include each other in a cycle");
  YAML::Node node = load_checked(read_text(path), path, true);
  if (!node.IsMap()) {
    throw ConfigError({Diagnostic{path, node.Mark().line + 1, node.Mark().column + 1, "",
                                  "expected a map of keys at the top of the file"}});
  }
  doc.track(node, path);
  const YAML::Node base_name = node["base"];
  if (!base_name) return node;
  if (!base_name.IsScalar())
    throw ConfigError({doc.at(base_name, "base", "expected a file name")});
  const std::string base_path = resolve_relative(path, base_name.as<std::string>());
  // A base that cannot be read is an error at the line that names it, not only at the missing file.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(base_path, ec) || !std::ifstream(base_path))
    throw ConfigError({doc.at(base_name, "base", "cannot open the base file " + base_path + " (does it exist?)")});
  chain.push_back(path);
  YAML::Node base = read_file(base_path, chain, doc);
  chain.pop_back();
  node.remove("base");
  doc.merge_into(base, node, path);
  return base;
}

Diagnostic locate_key(Diagnostic d) {
  const auto ends_with = [&](const char* ext) {
    const std::string e = ext;
    return d.origin.size() > e.size() && d.origin.compare(d.origin.size() - e.size(), e.size(), e) == 0;
  };
  if (d.line > 0 || d.key.empty() || !(ends_with(".yaml") || ends_with(".yml"))) return d;
  try {
    const ConfigDoc doc = ConfigDoc::load(d.origin);
    YAML::Node node = doc.root();
    std::string rest = d.key;
    while (!rest.empty()) {
      const size_t dot = rest.find('.');
      const std::string part = rest.substr(0, dot);
      rest = dot == std::string::npos ? "" : rest.substr(dot + 1);
      if (!node.IsMap() || !node[part]) return d;
      node = node[part];
    }
    const Diagnostic at = doc.at(node, d.key, d.message);
    if (at.line > 0) d.origin = at.origin, d.line = at.line, d.col = at.col;
  } catch (const ConfigError&) {
  }
  return d;
}

ConfigDoc ConfigDoc::load(const std::string& path) {
  ConfigDoc doc;
  doc.m_path = path;
  std::vector<std::string> chain;
  doc.m_root = read_file(path, chain, doc);
  return doc;
}

ConfigDoc ConfigDoc::parse(const std::string& text, const std::string& origin) {
  ConfigDoc doc;
  doc.m_path = origin;
  check_yaml_text(text, origin);
  doc.m_root = load_checked(text, origin, true);
  if (!doc.m_root.IsMap()) throw ConfigError(origin, "expected a map of keys at the top");
  doc.track(doc.m_root, origin);
  return doc;
}

ConfigDoc ConfigDoc::deep_copy() const {
  ConfigDoc doc;
  doc.m_path = m_path;
  // YAML::Clone builds the tree in one memory, the same shape in the same order, without marks:
  // the origins (which hold the marks at() reports) are attached by walking both trees.
  doc.m_root = YAML::Clone(m_root);
  doc.m_origins.reserve(m_one_per_node ? m_origins.size() : 2 * m_origins.size());
  track_copy(m_root, doc.m_root, doc);
  doc.m_one_per_node = true;
  return doc;
}

// Pre-order: the copy's origins line up with this document's when it is itself a deep copy.
void ConfigDoc::track_copy(const YAML::Node& node, const YAML::Node& copy, ConfigDoc& to) const {
  const size_t index = to.m_origins.size();
  if (m_one_per_node) {
    to.m_origins.push_back({copy, m_origins[index].origin, m_origins[index].mark});
  } else {
    // As at() finds it: the latest entry wins; a node nobody tracked gets the document's path.
    auto it = m_origins.rbegin();
    while (it != m_origins.rend() && !it->node.is(node)) ++it;
    if (it == m_origins.rend()) to.m_origins.push_back({copy, m_path, YAML::Mark::null_mark()});
    else to.m_origins.push_back({copy, it->origin, it->mark});
  }
  // Iterators only: size() caches a count inside the node, a write, and the base is shared by threads.
  if (node.IsSequence()) {
    for (auto a = node.begin(), b = copy.begin(); a != node.end(); ++a, ++b) track_copy(*a, *b, to);
  } else if (node.IsMap()) {
    for (auto a = node.begin(), b = copy.begin(); a != node.end(); ++a, ++b) {
      track_copy(a->first, b->first, to);
      track_copy(a->second, b->second, to);
    }
  }
}

void ConfigDoc::apply_override(const std::string& assignment) {
  const std::string origin = "--set " + assignment;
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw ConfigError(origin, "expected dotted.key=value");
  const std::string key = assignment.substr(0, eq);
  const YAML::Node value = load_checked(assignment.substr(eq + 1), origin, false);
  // Walk to the parent map, creating nothing: an override of a key that does not exist would
  // otherwise add it silently; unknown keys are reported by the reader with this origin.
  std::vector<std::string> parts;
  std::stringstream ss(key);
  for (std::string part; std::getline(ss, part, '.');) parts.push_back(part);
  for (const std::string& part : parts)
    if (part.empty()) throw ConfigError(origin, "expected dotted.key=value (an empty part in \"" + key + "\")");
  if (key.back() == '.') throw ConfigError(origin, "expected dotted.key=value (ends with a dot)");
  YAML::Node node = m_root;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    YAML::Node next = node[parts[i]];
    if (!next.IsMap()) {
      const std::string prefix = key.substr(0, key.find(parts[i]) + parts[i].size());
      throw ConfigError({Diagnostic{origin, 0, 0, prefix, "no such map in the configuration"}});
    }
    node.reset(next);
  }
  node[parts.back()] = value;
  // Appended, never inserted: assigning a YAML::Node writes through to the document, so the
  // vector must not shift its elements. at() searches from the back: the latest origin wins.
  track_entry(node, parts.back(), origin, YAML::Mark::null_mark());
}

Diagnostic ConfigDoc::at(const YAML::Node& node, const std::string& key,
                         const std::string& message) const {
  for (auto it = m_origins.rbegin(); it != m_origins.rend(); ++it) {
    if (it->node.is(node)) {
      if (it->origin.rfind("--set ", 0) == 0 || it->mark.is_null())
        return Diagnostic{it->origin, 0, 0, key, message};
      return Diagnostic{it->origin, it->mark.line + 1, it->mark.column + 1, key, message};
    }
  }
  return Diagnostic{m_path, 0, 0, key, message};
}

}  // namespace kp
