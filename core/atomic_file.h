#pragma once
// Writes a whole file atomically: to `path.tmp.<pid>`, flushed, then renamed over `path`, so a
// reader (or a killed run) never sees a half-written file. Throws std::runtime_error on I/O error.
#include <string>

namespace kp {

void write_file_atomic(const std::string& path, const std::string& contents);

}  // namespace kp
