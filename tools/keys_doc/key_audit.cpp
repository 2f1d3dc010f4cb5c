#include "tools/keys_doc/key_audit.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace kp {

std::vector<std::string> unreached_keys(const std::string& source_root, const KeySections& sections) {
  // Last part of every gathered key, alone and with the rest of the key before it.
  std::set<std::string> reached;
  for (const auto& [name, section] : sections)
    for (const auto& [key, row] : section) {
      const size_t cut = key.find_last_of(".]");
      reached.insert(cut == std::string::npos ? key : key.substr(cut + 1));
      reached.insert(name + ":" + key);
    }
  // Files whose every key sits under one map: their literals must be reached there, not elsewhere
  // (transformer.classes is not the workload's classes).
  const std::map<std::string, std::string> under = {{"transformer_spec.cpp", "workload:transformer."},
                                                    {"runtime_spec.cpp", "hardware:runtime."}};
  static const std::regex call(
      R"(\.(quantity|quantity_or|quantity_nonneg_or|integer|integer_or|number|number_or|boolean_or|text|text_or|)"
      R"(choice|choice_or|integer_list|map|map_list|describe|mark_used)\("([a-z_0-9]+)\")"
      R"(|\b(parse_kind|text_list|int_pair_or|parse_layers|parse_files|parse_grid)\(\w+, "([a-z_0-9]+)\")");
  std::vector<std::string> files;
  for (const char* dir : {"core", "tools/study"})
    for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(source_root) / dir))
      if (e.path().extension() == ".cpp") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  std::vector<std::string> out;
  for (const std::string& file : files) {
    std::ifstream in(file);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    const auto prefix = under.find(std::filesystem::path(file).filename().string());
    std::set<std::string> seen;
    for (std::sregex_iterator it(text.begin(), text.end(), call), end; it != end; ++it) {
      const std::string key = (*it)[2].matched ? (*it)[2].str() : (*it)[4].str();
      if (reached.count(prefix == under.end() ? key : prefix->second + key) || !seen.insert(key).second) continue;
      out.push_back(file + ": the key \"" + key + "\" is read here, but no shipped file or probe reaches it "
                    "(add a probe in tools/keys_doc/keys_doc_main.cpp)");
    }
  }
  return out;
}

}  // namespace kp
