#pragma once
// FNV-1a 64-bit hash (Fowler, Noll, Vo) of a byte string as 16 lower-case hex digits: the
// fingerprint kneepoint stores of the files a result came from (curve caches, calibrated
// hardware files). Contract: deterministic across runs and machines; not cryptographic.
#include <string>

namespace kp {

std::string fnv1a64_hex(const std::string& bytes);

}  // namespace kp
