#pragma once
// Every `kind:` the YAML accepts, by area, for `kneepoint --list-kinds` and error messages.
#include <string>
#include <vector>

namespace kp {

struct KindInfo {
  std::string area, kind, description;
};

std::vector<KindInfo> all_kinds();

}  // namespace kp
