#include "core/csv_line.h"

namespace kp {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t'; }

}  // namespace

CsvLine split_csv_line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  CsvLine out;
  size_t pos = 0;
  while (true) {
    while (pos < line.size() && is_blank(line[pos])) ++pos;
    CsvField f;
    f.col = static_cast<int>(pos) + 1;
    if (pos < line.size() && line[pos] == '"') {
      f.quoted = true;
      ++pos;
      bool closed = false;
      while (pos < line.size()) {
        if (line[pos] != '"') {
          f.text += line[pos++];
        } else if (pos + 1 < line.size() && line[pos + 1] == '"') {
          f.text += '"';
          pos += 2;
        } else {
          ++pos;
          closed = true;
          break;
        }
      }
      if (!closed) {
        out.error = "unterminated quoted field";
        out.error_col = f.col;
        return out;
      }
      while (pos < line.size() && is_blank(line[pos])) ++pos;
      if (pos < line.size() && line[pos] != ',') {
        out.error = "unexpected text after a closing quote (a quote inside a field is written \"\")";
        out.error_col = static_cast<int>(pos) + 1;
        return out;
      }
    } else {
      const size_t end = std::min(line.find(',', pos), line.size());
      size_t e = end;
      while (e > pos && is_blank(line[e - 1])) --e;
      f.text = std::string(line.substr(pos, e - pos));
      pos = end;
    }
    out.fields.push_back(std::move(f));
    if (pos >= line.size()) break;
    ++pos;  // the comma
  }
  return out;
}

std::string csv_quote(std::string_view field) {
  const bool needs = field.find_first_of(",\"\r\n") != std::string_view::npos ||
                     (!field.empty() && (is_blank(field.front()) || is_blank(field.back())));
  if (!needs) return std::string(field);
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace kp
