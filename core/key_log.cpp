#include "core/key_log.h"

#include <cstdio>

namespace kp {
namespace {

KeyLog* g_key_log = nullptr;

}  // namespace

void set_key_log(KeyLog* log) { g_key_log = log; }
KeyLog* key_log() { return g_key_log; }

std::string quantity_type(Dim dim) {
  std::string name = dim_name(dim);
  for (const char* article : {"a ", "an "})
    if (name.rfind(article, 0) == 0) name = name.substr(std::string(article).size());
  return name + " (" + dim_units(dim) + ")";
}
std::string quantity_text(double si, Dim dim) { return si > 0 ? format_quantity(si, dim) : "0"; }
std::string int_range(int64_t min_value, int64_t max_value) {
  return "[" + std::to_string(min_value) + ", " + format_limit(max_value) + "]";
}
std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}
std::string options_text(std::initializer_list<const char*> options) {
  std::string out;
  for (const char* o : options) out += (out.empty() ? "" : ", ") + std::string(o);
  return out;
}

}  // namespace kp
