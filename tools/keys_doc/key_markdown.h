#pragma once
// docs/keys.md from the gathered keys (key_reference.h) and the meanings written by hand in
// docs/key_meanings.yaml. Contract: render() gives the whole page, deterministic for the same
// inputs; problems() lists every gathered key without a meaning and every meaning of a key that no
// parser reads, one line each (empty: the two agree).
#include <map>
#include <string>
#include <vector>

#include "tools/keys_doc/key_reference.h"

namespace kp {

using KeySections = std::map<std::string, KeyReference::Section>;

class KeyMarkdown {
 public:
  // `meanings_path`: a YAML map of section (hardware, workload, study, layer) to key -> meaning, or
  // key -> {meaning, default, range} where the parser's default or bound depends on other keys
  // (`d_ff: 4 x d_model`): the gathered values would mislead, and would change with the shipped
  // files (a new file with another d_model would make docs/keys.md stale).
  KeyMarkdown(const KeySections& sections, const std::string& meanings_path);
  std::vector<std::string> problems() const;
  std::string render() const;

 private:
  std::string table(const std::string& section) const;

  const KeySections& m_sections;
  std::string m_meanings_path;
  struct Meaning {
    std::string text, fallback, range;  // fallback, range: "" = the gathered ones
  };
  const Meaning* find(const std::string& section, const std::string& key) const;
  std::map<std::string, std::map<std::string, Meaning>> m_meanings;
};

}  // namespace kp
