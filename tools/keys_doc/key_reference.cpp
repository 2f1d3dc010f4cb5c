#include "tools/keys_doc/key_reference.h"

#include <vector>

namespace kp {
namespace {

std::string join(const std::set<std::string>& parts, const char* sep) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

// "network[2].body[0]" -> the node it names in `root`, or an undefined node.
YAML::Node walk(const YAML::Node& root, const std::string& path) {
  YAML::Node node = root;
  size_t at = 0;
  while (at < path.size() && node.IsDefined()) {
    const size_t dot = path.find('.', at);
    const std::string part = path.substr(at, dot == std::string::npos ? std::string::npos : dot - at);
    const size_t open = part.find('[');
    // reset(), never `=`: assigning a YAML::Node writes through into the document.
    // Looked up through a const node: a non-const lookup of a missing key may add it.
    const YAML::Node map = node;
    node.reset(map[part.substr(0, open)]);
    const YAML::Node list = node;
    if (open != std::string::npos && list.IsSequence()) node.reset(list[std::stoul(part.substr(open + 1))]);
    at = dot == std::string::npos ? path.size() : dot + 1;
  }
  return node;
}

// Every "[N]" as "[]".
std::string merge_indices(const std::string& key) {
  std::string out;
  for (size_t i = 0; i < key.size(); ++i) {
    out += key[i];
    if (key[i] == '[') {
      while (i + 1 < key.size() && key[i + 1] != ']') ++i;
    }
  }
  return out;
}

}  // namespace

std::string KeyRow::type_text() const {
  // "value" (read by hand) only where nothing better is known; "integer" where a longer form
  // ("integer or [height, width]") says more.
  std::set<std::string> kept;
  for (const std::string& t : types) {
    if (t == "value" && types.size() > 1) continue;
    bool shadowed = false;
    for (const std::string& other : types) shadowed = shadowed || (other != t && other.rfind(t + " ", 0) == 0);
    if (!shadowed) kept.insert(t);
  }
  return join(kept, "; or ");
}

std::string KeyRow::range_text() const { return join(ranges, " or "); }

std::string KeyRow::default_text() const {
  if (!optional) return "required";
  std::string out = fallbacks.empty() ? "none" : join(fallbacks, " or ");
  return required ? out + " (required in some cases)" : out;
}

void KeyReference::begin(const std::string& section, const ConfigDoc& doc) {
  m_section = section;
  m_doc = &doc;
}

void KeyReference::note(const KeyUse& use) {
  if (!m_doc || use.origin != m_doc->path()) return;
  std::string section = m_section, key = merge_indices(use.key);
  // Inside a layer: the part after the innermost list entry, under the layer's kind.
  const size_t close = use.key.rfind(']');
  if (m_section == "workload" && use.key.rfind("network[", 0) == 0 && close != std::string::npos &&
      close + 1 < use.key.size()) {
    const YAML::Node layer = walk(m_doc->root(), use.key.substr(0, close + 1));
    std::string kind = "(repeat)";
    if (layer.IsMap() && layer["kind"] && layer["kind"].IsScalar()) kind = layer["kind"].Scalar();
    else if (!(layer.IsMap() && layer["repeat"])) kind = "(any)";
    section = "layer " + kind;
    key = use.key.substr(close + 2);
  }
  KeyRow& row = m_sections[section][key];
  row.types.insert(use.type);
  if (!use.range.empty()) row.ranges.insert(use.range);
  if (!use.fallback.empty()) row.fallbacks.insert(use.fallback);
  (use.required ? row.required : row.optional) = true;
}

std::map<std::string, KeyReference::Section> KeyReference::sections() const {
  std::map<std::string, Section> out = m_sections;
  for (auto& [name, section] : out) {
    std::vector<std::string> free_form;
    for (const auto& [key, row] : section)
      if (row.type_text().rfind("map of ", 0) == 0) free_form.push_back(key + ".");
    for (auto it = section.begin(); it != section.end();) {
      bool drop = false;
      for (const std::string& p : free_form) drop = drop || it->first.rfind(p, 0) == 0;
      it = drop ? section.erase(it) : std::next(it);
    }
  }
  return out;
}

}  // namespace kp
