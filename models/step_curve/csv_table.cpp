#include "models/step_curve/csv_table.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/csv_line.h"

namespace kp {
namespace {

bool blank_or_comment(const std::string& text) {
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\r') continue;
    return c == '#';
  }
  return true;
}

// The whole file, refusing folders and anything over kMaxCsvBytes (read in bounded chunks, so a
// device or a pipe that never ends cannot hang or exhaust memory).
std::string read_bounded(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw ConfigError(path, "is a folder, expected a CSV file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path, "cannot open file");
  std::string text;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxCsvBytes)
      throw ConfigError(path, "file is larger than " + std::to_string(kMaxCsvBytes >> 20) +
                                  " MiB, the limit for a CSV input");
  }
  if (in.bad()) throw ConfigError(path, "read error");
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);  // a UTF-8 byte-order mark
  return text;
}

CsvRow to_row(const CsvLine& split, int line) {
  CsvRow row;
  row.line = line;
  for (const CsvField& f : split.fields) {
    row.fields.push_back(f.text);
    row.cols.push_back(f.col);
  }
  return row;
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
  const std::string text = read_bounded(path);
  CsvTable table;
  table.origin = path;
  std::vector<Diagnostic>& diagnostics = table.diagnostics;
  int line = 0;
  bool have_header = false;
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    const std::string raw = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line;
    if (blank_or_comment(raw)) continue;
    const CsvLine split = split_csv_line(raw);
    if (!split.error.empty()) {
      if (!have_header) throw ConfigError({{path, line, split.error_col, "", split.error}});
      diagnostics.push_back({path, line, split.error_col, "", split.error});
      continue;
    }
    if (!have_header) {
      for (std::size_t i = 0; i < split.fields.size(); ++i) {
        const CsvField& f = split.fields[i];
        if (f.text.empty())
          throw ConfigError({{path, line, f.col, "", "header column " + std::to_string(i + 1) + " has no name"}});
        if (std::find(table.header.begin(), table.header.end(), f.text) != table.header.end())
          throw ConfigError({{path, line, f.col, f.text, "column name repeated in the header"}});
        table.header.push_back(f.text);
        table.header_cols.push_back(f.col);
      }
      table.header_line = line;
      have_header = true;
      continue;
    }
    if (split.fields.size() != table.header.size()) {
      const std::size_t n = split.fields.size(), want = table.header.size();
      const int col = n > want ? split.fields[want].col : static_cast<int>(raw.size()) + 1;
      diagnostics.push_back({path, line, col, "",
                             "expected " + std::to_string(want) + " fields, got " + std::to_string(n)});
      continue;
    }
    if (table.rows.size() >= kMaxCsvRows)
      throw ConfigError({{path, line, 1, "", "more than " + std::to_string(kMaxCsvRows) +
                                                 " data rows, the limit for a CSV input"}});
    table.rows.push_back(to_row(split, line));
  }
  if (!have_header) throw ConfigError({{path, 1, 1, "", "empty file: expected a header line"}});
  return table;
}

bool is_failure_marker(const std::string& s) {
  std::string lower;
  for (char c : s) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.empty() || lower == "inf" || lower == "+inf" || lower == "infinity" ||
         lower == "nan" || lower == "failed";
}

}  // namespace kp
