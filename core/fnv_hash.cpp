#include "core/fnv_hash.h"

#include <cstdint>
#include <cstdio>

namespace kp {

std::string fnv1a64_hex(const std::string& bytes) {
  uint64_t h = 0xcbf29ce484222325ull;  // the 64-bit offset basis and prime of the FNV spec
  for (unsigned char ch : bytes) h = (h ^ ch) * 0x100000001b3ull;
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace kp
