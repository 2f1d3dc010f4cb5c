#pragma once
// The keys the parsers ask for, gathered through the key log (core/key_log.h) while they read
// documents, and merged into one row per documented key. Contract: begin(section, doc) names the
// section ("hardware", "workload", "study") and the document whose keys count until end(); keys of
// other documents read meanwhile (a study's base files) are ignored. Entries of list items are
// merged ([3] becomes []); a key inside a network layer goes to the section "layer <kind>" under
// its name within the layer (units, to.channels), the kind read from the document itself. Children
// of a key described as "map of ..." are names the user picks (input.fields.user) and are dropped.
#include <map>
#include <set>
#include <string>

#include "core/config_doc.h"
#include "core/key_log.h"

namespace kp {

struct KeyRow {
  std::set<std::string> types, ranges, fallbacks;
  bool required = false, optional = false;
  // One text per column, merged across every read of the key.
  std::string type_text() const;
  std::string range_text() const;
  std::string default_text() const;
};

class KeyReference : public KeyLog {
 public:
  using Section = std::map<std::string, KeyRow>;

  void begin(const std::string& section, const ConfigDoc& doc);
  void end() { m_doc = nullptr; }
  void note(const KeyUse& use) override;
  // The sections with free-form children removed: section name -> key -> row.
  std::map<std::string, Section> sections() const;

 private:
  std::string m_section;
  const ConfigDoc* m_doc = nullptr;
  std::map<std::string, Section> m_sections;
};

}  // namespace kp
