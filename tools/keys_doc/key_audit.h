#pragma once
// A cross-check of the gathered keys against the parsers' source text: every key name written as
// a string literal in a ConfigMap getter call (m.integer_or("units", ...), parse_kind(d, "kind", ...))
// in core/*.cpp and tools/study/*.cpp must be the last part of some gathered key. Contract: returns
// one line per literal that no shipped file or probe reached (a key on a branch nothing takes: add
// a probe in keys_doc_main.cpp); empty when every literal was reached. A literal counts as reached
// when any gathered key ends with it, except in transformer_spec.cpp and runtime_spec.cpp, whose
// keys must be reached under transformer. and runtime.; so a key of the same name elsewhere can
// hide an unreached one, and a key named through a variable escapes the check.
#include <string>
#include <vector>

#include "tools/keys_doc/key_markdown.h"

namespace kp {

std::vector<std::string> unreached_keys(const std::string& source_root, const KeySections& sections);

}  // namespace kp
