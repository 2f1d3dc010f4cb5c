#pragma once
// Small helpers shared by the SCALE-Sim readers: trimming with column tracking and strict integer
// parsing (the whole field must be a base-10 integer; "12abc" and "1e3" are rejected).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kp::scalesim_text {

// A trimmed slice of a line and its 1-based column.
struct Field {
  std::string_view text;
  int col = 1;
};

Field trim(std::string_view s, int col);
std::optional<int64_t> parse_int(std::string_view s);
std::string lower(std::string_view s);
std::string quoted(std::string_view s);  // "\"...\"" for messages

// The whole file at `path`, read in chunks; ConfigError if it cannot be opened, is a folder, or
// holds more than max_bytes (so /dev/zero or a wrong multi-GB file is refused, not read forever).
std::string read_bounded_file(const std::string& path, size_t max_bytes, const std::string& what);

}  // namespace kp::scalesim_text
