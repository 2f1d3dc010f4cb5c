#include "models/step_curve/csv_table.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <fstream>

namespace kp {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Splits on commas, trimming each field and remembering where it starts.
CsvRow split(const std::string& text, int line) {
  CsvRow row;
  row.line = line;
  std::size_t start = 0;
  while (true) {
    std::size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::size_t b = start, e = end;
    while (b < e && is_space(text[b])) ++b;
    while (e > b && is_space(text[e - 1])) --e;
    row.fields.push_back(text.substr(b, e - b));
    row.cols.push_back(static_cast<int>(b) + 1);
    if (end == text.size()) break;
    start = end + 1;
  }
  return row;
}

bool blank_or_comment(const std::string& text) {
  for (char c : text) {
    if (is_space(c)) continue;
    return c == '#';
  }
  return true;
}

}  // namespace

int CsvTable::find(const std::string& name) const {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return static_cast<int>(i);
  return -1;
}

void throw_if_any(std::vector<Diagnostic> diagnostics) {
  if (diagnostics.empty()) return;
  std::stable_sort(diagnostics.begin(), diagnostics.end(),
                   [](const Diagnostic& a, const Diagnostic& b) { return a.line < b.line; });
  throw ConfigError(std::move(diagnostics));
}

bool parse_double(const std::string& text, double& out) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  out = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && errno != ERANGE;
}

CsvTable read_csv_table(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError(path, "cannot open file");
  CsvTable table;
  table.origin = path;
  std::vector<Diagnostic>& diagnostics = table.diagnostics;
  std::string text;
  int line = 0;
  bool have_header = false;
  while (std::getline(in, text)) {
    ++line;
    if (blank_or_comment(text)) continue;
    CsvRow row = split(text, line);
    if (!have_header) {
      table.header = row.fields;
      table.header_line = line;
      have_header = true;
      continue;
    }
    if (row.fields.size() != table.header.size()) {
      diagnostics.push_back({path, line, 1, "",
                             "expected " + std::to_string(table.header.size()) + " fields, got " +
                                 std::to_string(row.fields.size())});
      continue;
    }
    table.rows.push_back(std::move(row));
  }
  if (!have_header) throw ConfigError(path, "empty file: expected a header line");
  return table;
}

bool is_failure_marker(const std::string& s) {
  std::string lower;
  for (char c : s) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.empty() || lower == "inf" || lower == "+inf" || lower == "infinity" ||
         lower == "nan" || lower == "failed";
}

}  // namespace kp
