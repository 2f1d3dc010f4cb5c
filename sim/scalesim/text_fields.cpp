#include "sim/scalesim/text_fields.h"

#include <cctype>
#include <charconv>
#include <filesystem>
#include <fstream>

#include "core/config_error.h"

namespace kp::scalesim_text {

Field trim(std::string_view s, int col) {
  size_t b = 0;
  while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  size_t e = s.size();
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return {s.substr(b, e - b), col + static_cast<int>(b)};
}

std::optional<int64_t> parse_int(std::string_view s) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  int64_t v = 0;
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, v);
  if (s.empty() || ec != std::errc() || p != end) return std::nullopt;
  return v;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

std::string read_bounded_file(const std::string& path, size_t max_bytes, const std::string& what) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw ConfigError(path, "is a folder, expected the " + what);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path, "cannot open the " + what);
  std::string text;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<size_t>(in.gcount()));
    if (text.size() > max_bytes)
      throw ConfigError(path, "the " + what + " is larger than " + std::to_string(max_bytes >> 20) + " MiB");
  }
  return text;
}

}  // namespace kp::scalesim_text
