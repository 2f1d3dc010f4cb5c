#pragma once
// Checks of a YAML text and its node tree that yaml-cpp does not make. Contract: check_yaml_text()
// refuses what is not a small text file (over kMaxYamlBytes, or holding a NUL byte) before it is
// parsed; check_yaml_tree() reports every duplicate key of every map (yaml-cpp keeps both entries
// and lookups see one of them), every key that is not a plain scalar (`? [a, b]`), nesting deeper
// than kMaxYamlDepth, and a tree of more than kMaxYamlNodes nodes counting each alias use
// (a "billion laughs" file expands exponentially in every walk). Diagnostics name origin:line:col.
#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <string>
#include <vector>

#include "core/config_error.h"

namespace kp {

constexpr size_t kMaxYamlBytes = 4u << 20;  // 4 MiB: the shipped files are under 10 KiB
constexpr size_t kMaxYamlNodes = 1000000;   // after alias expansion; a large study has ~10^4
constexpr int kMaxYamlDepth = 64;           // a network of nested residual blocks is ~10 deep

// Throws ConfigError naming `origin` and, for a NUL byte, its line and column.
void check_yaml_text(const std::string& text, const std::string& origin);
// Appends the problems of the tree under `root` to `out` (at most a few dozen).
void check_yaml_tree(const YAML::Node& root, const std::string& origin, std::vector<Diagnostic>& out);

}  // namespace kp
