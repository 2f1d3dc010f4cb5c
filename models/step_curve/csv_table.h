#pragma once
// A reader for the comma-separated files of this folder (step curves, Pollux traces, trial rows).
// Contract: the first non-blank, non-'#' line is the header; every later such line must have as
// many fields as the header. Fields are split by core/csv_line.h (RFC 4180 quotes, as kneepoint's
// own CSV writers emit them) and trimmed. Rows of the wrong shape are skipped and recorded in
// `diagnostics` (1-based line:col) so that the caller adds its own value checks and throws all of
// them as one ConfigError. Throws at once for an unreadable, empty or oversized file, a folder,
// and a header with an empty or repeated column name.
// Limits: kMaxCsvBytes per file and kMaxCsvRows data rows (a curve has tens of rows, a Pollux
// trace about a hundred; a bigger file is a wrong file, and reading it would only be slow).
#include <cstddef>
#include <string>
#include <vector>

#include "core/config_error.h"

namespace kp {

constexpr std::size_t kMaxCsvBytes = 16u << 20;  // 16 MiB
constexpr std::size_t kMaxCsvRows = 100000;

struct CsvRow {
  int line = 0;                     // 1-based line in the file
  std::vector<std::string> fields;  // trimmed, quotes removed
  std::vector<int> cols;            // 1-based column where each field starts
};

struct CsvTable {
  std::string origin;  // the file path, used in diagnostics
  std::vector<std::string> header;
  std::vector<int> header_cols;
  int header_line = 0;  // 1-based
  std::vector<CsvRow> rows;
  std::vector<Diagnostic> diagnostics;  // shape errors, in line order

  // Index of a header column, or -1.
  int find(const std::string& name) const;
};

CsvTable read_csv_table(const std::string& path);

// Throws one ConfigError with the diagnostics in line order, if there are any.
void throw_if_any(std::vector<Diagnostic> diagnostics);

// Parses a whole field as a double (strtod must consume it all); false if it is not a number.
bool parse_double(const std::string& text, double& out);
// A steps field that says the trial never reached the target: empty, inf, +inf, infinity, nan or
// failed (any case).
bool is_failure_marker(const std::string& text);

}  // namespace kp
