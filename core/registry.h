#pragma once
// One registry per area maps a YAML `kind:` to a parser. Contract: add() is called only from the
// area's register_<area>() function (explicit registration: no static initialisers that vanish
// when a file is left out of the build); find() returns nullptr for an unknown kind and
// known_list() is what the error message lists.
#include <functional>
#include <string>
#include <vector>

namespace kp {

class ConfigMap;

template <class Spec>
class Registry {
 public:
  struct Entry {
    std::string kind;
    std::string description;
    std::function<Spec(ConfigMap&)> parse;
  };

  void add(std::string kind, std::string description, std::function<Spec(ConfigMap&)> parse) {
    m_entries.push_back(Entry{std::move(kind), std::move(description), std::move(parse)});
  }
  const Entry* find(const std::string& kind) const {
    for (const Entry& e : m_entries)
      if (e.kind == kind) return &e;
    return nullptr;
  }
  std::string known_list() const {
    std::string out;
    for (const Entry& e : m_entries) out += (out.empty() ? "" : ", ") + e.kind;
    return out;
  }
  const std::vector<Entry>& entries() const { return m_entries; }

 private:
  std::vector<Entry> m_entries;
};

}  // namespace kp
