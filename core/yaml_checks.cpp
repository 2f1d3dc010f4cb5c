#include "core/yaml_checks.h"

#include <map>

namespace kp {
namespace {

constexpr size_t kMaxReported = 20;  // enough to fix a file in one pass without drowning the user

Diagnostic at(const std::string& origin, const YAML::Node& node, const std::string& key,
              const std::string& message) {
  const YAML::Mark m = node.Mark();
  return Diagnostic{origin, m.line + 1, m.column + 1, key, message};
}

std::string where(const YAML::Mark& m) {
  return "line " + std::to_string(m.line + 1) + ", column " + std::to_string(m.column + 1);
}

class TreeCheck {
 public:
  TreeCheck(const std::string& origin, std::vector<Diagnostic>& out) : m_origin(origin), m_out(out) {}

  // False once the walk must stop (node budget spent or too many problems).
  bool walk(const YAML::Node& node, const std::string& path, int depth) {
    if (++m_nodes > kMaxYamlNodes) {
      report(at(m_origin, node, path, "more than " + std::to_string(kMaxYamlNodes) +
                                          " YAML nodes counting every alias use (an alias bomb?)"));
      return false;
    }
    if (depth > kMaxYamlDepth) {
      report(at(m_origin, node, path, "nested deeper than " + std::to_string(kMaxYamlDepth) + " levels"));
      return true;  // nothing below is walked: the file is refused anyway
    }
    if (node.IsSequence()) {
      size_t i = 0;
      for (const YAML::Node& child : node)
        if (!walk(child, path + "[" + std::to_string(i++) + "]", depth + 1)) return false;
      return m_out.size() < kMaxReported;
    }
    if (!node.IsMap()) return true;
    std::map<std::string, YAML::Mark> seen;
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (!it->first.IsScalar()) {
        report(at(m_origin, it->first, path, std::string("expected a plain key, got a ") +
                                                 (it->first.IsMap() ? "map" : it->first.IsSequence() ? "list" : "null")));
        continue;
      }
      const std::string key = it->first.Scalar();
      const std::string dotted = path.empty() ? key : path + "." + key;
      const auto [first, fresh] = seen.emplace(key, it->first.Mark());
      if (!fresh)
        report(at(m_origin, it->first, dotted, "duplicate key (first at " + where(first->second) + ")"));
      if (!walk(it->second, dotted, depth + 1)) return false;
    }
    return m_out.size() < kMaxReported;
  }

 private:
  void report(Diagnostic d) {
    if (m_out.size() < kMaxReported) m_out.push_back(std::move(d));
  }

  const std::string& m_origin;
  std::vector<Diagnostic>& m_out;
  size_t m_nodes = 0;
};

}  // namespace

void check_yaml_text(const std::string& text, const std::string& origin) {
  if (text.size() > kMaxYamlBytes)
    throw ConfigError(origin, "file larger than " + std::to_string(kMaxYamlBytes >> 20) + " MiB, expected at most " +
                                  std::to_string(kMaxYamlBytes >> 20) + " MiB of YAML");
  const size_t nul = text.find('\0');
  if (nul == std::string::npos) return;
  int line = 1, col = 1;
  for (size_t i = 0; i < nul; ++i) {
    if (text[i] == '\n') ++line, col = 1;
    else ++col;
  }
  throw ConfigError({Diagnostic{origin, line, col, "", "NUL byte in the file: expected YAML text"}});
}

void check_yaml_tree(const YAML::Node& root, const std::string& origin, std::vector<Diagnostic>& out) {
  TreeCheck(origin, out).walk(root, "", 0);
}

}  // namespace kp
