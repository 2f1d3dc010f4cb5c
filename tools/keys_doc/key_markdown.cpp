#include "tools/keys_doc/key_markdown.h"

#include <yaml-cpp/yaml.h>

#include "core/network_parse.h"

namespace kp {
namespace {

const char* const kPlainSections[] = {"hardware", "workload", "study"};

std::string group_of(const std::string& section) { return section.rfind("layer ", 0) == 0 ? "layer" : section; }

// A table cell: pipes escaped, nothing that breaks the row.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

}  // namespace

KeyMarkdown::KeyMarkdown(const KeySections& sections, const std::string& meanings_path)
    : m_sections(sections), m_meanings_path(meanings_path) {
  const YAML::Node root = YAML::LoadFile(meanings_path);
  for (auto group = root.begin(); group != root.end(); ++group)
    for (auto entry = group->second.begin(); entry != group->second.end(); ++entry) {
      const YAML::Node v = entry->second;
      Meaning& m = m_meanings[group->first.Scalar()][entry->first.Scalar()];
      if (v.IsScalar()) {
        m.text = v.Scalar();
      } else if (v.IsMap()) {
        m.text = v["meaning"].as<std::string>("");
        m.fallback = v["default"].as<std::string>("");
        m.range = v["range"].as<std::string>("");
      }
    }
}

const KeyMarkdown::Meaning* KeyMarkdown::find(const std::string& section, const std::string& key) const {
  const auto group = m_meanings.find(group_of(section));
  if (group == m_meanings.end()) return nullptr;
  const auto it = group->second.find(key);
  return it == group->second.end() || it->second.text.empty() ? nullptr : &it->second;
}

std::vector<std::string> KeyMarkdown::problems() const {
  std::vector<std::string> out;
  for (const auto& [section, keys] : m_sections)
    for (const auto& [key, row] : keys)
      if (!find(section, key))
        out.push_back(m_meanings_path + ": " + group_of(section) + ": no meaning for the key \"" + key +
                      "\" (" + row.type_text() + ")");
  for (const auto& [group, keys] : m_meanings)
    for (const auto& [key, text] : keys) {
      bool read = false;
      for (const auto& [section, gathered] : m_sections)
        read = read || (group_of(section) == group && gathered.count(key));
      if (!read) out.push_back(m_meanings_path + ": " + group + ": \"" + key + "\" is a key no parser reads");
    }
  return out;
}

std::string KeyMarkdown::table(const std::string& section) const {
  std::string out = "| key | type | range | default | meaning |\n|---|---|---|---|---|\n";
  for (const auto& [key, row] : m_sections.at(section)) {
    const Meaning* m = find(section, key);
    const std::string range = m && !m->range.empty() ? m->range : row.range_text();
    const std::string fallback = m && !m->fallback.empty() ? m->fallback : row.default_text();
    out += "| `" + key + "` | " + cell(row.type_text()) + " | " + cell(range) + " | " + cell(fallback) + " | " +
           cell(m ? m->text : "") + " |\n";
  }
  return out;
}

std::string KeyMarkdown::render() const {
  std::string out =
      "# YAML key reference\n\n"
      "Every key that the parsers of hardware, workload and study files accept, with its type, the\n"
      "bounds the parser checks (plausibility limits), its default and its meaning. A misspelt key is\n"
      "an error that lists the keys known at its place. Quantities are a number and a unit\n"
      "(`900 GB/s`, `1.41 GHz`, `50 W`).\n\n"
      "This page is generated; do not edit it. The key, type, range and default columns come from the\n"
      "parsers themselves (`core/key_log.h`), recorded while they read every shipped file and one probe\n"
      "per layer kind; the meanings come from `docs/key_meanings.yaml`. After adding or changing a key,\n"
      "write its meaning there and run `cmake --build build --target keys_doc` (the test\n"
      "`docs.keys_reference` fails until both agree).\n";
  const char* titles[] = {"Hardware file (`hw_configs/`)", "Workload file (`workloads/`)", "Study file (`studies/`)"};
  for (size_t i = 0; i < 3; ++i) {
    if (!m_sections.count(kPlainSections[i])) continue;
    out += std::string("\n## ") + titles[i] + "\n\n" + table(kPlainSections[i]);
    if (i != 1) continue;
    out += "\n## Network layers (`network[]`)\n\n"
           "Each entry of `network:` (and of a residual's `body:` and `shortcut:`, a repeat's `layers:`)\n"
           "is a layer, `kind:` and its keys, or a `repeat:` block. `name` and `inputs` are read for every\n"
           "kind.\n";
    for (const auto& entry : layer_registry().entries()) {
      const std::string section = "layer " + entry.kind;
      if (!m_sections.count(section)) continue;
      out += "\n### `" + entry.kind + "`: " + entry.description + "\n\n" + table(section);
    }
    if (m_sections.count("layer (repeat)"))
      out += "\n### `repeat`: the layers of a block, copied\n\n" + table("layer (repeat)");
  }
  return out;
}

}  // namespace kp
