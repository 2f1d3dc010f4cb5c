#pragma once
// A minimal reader for the comma-separated files of this folder (step curves, Pollux traces).
// Contract: the first non-blank, non-'#' line is the header; every later such line must have as
// many fields as the header. Fields are trimmed; no quoting (none of these files need it).
// Rows of the wrong shape are skipped and recorded in `diagnostics` (1-based line:col) so that the
// caller adds its own value checks and throws all of them as one ConfigError; only an unreadable or
// empty file throws here.
#include <cstddef>
#include <string>
#include <vector>

#include "core/config_error.h"

namespace kp {

struct CsvRow {
  int line = 0;                     // 1-based line in the file
  std::vector<std::string> fields;  // trimmed
  std::vector<int> cols;            // 1-based column where each field starts
};

struct CsvTable {
  std::string origin;  // the file path, used in diagnostics
  std::vector<std::string> header;
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
