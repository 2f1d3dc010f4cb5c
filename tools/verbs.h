#pragma once
// The CLI verb table (generated: see verbs.cpp.in).
#include <vector>

#include "tools/commands.h"

namespace kp {

struct Verb {
  const char* name;
  int (*run)(const Args&);
};

const std::vector<Verb>& verbs();

}  // namespace kp
