#pragma once
// One line of a comma-separated file split into fields, RFC 4180 quoting: a field that starts
// with '"' (after leading blanks) runs to the matching '"', a doubled "" inside stands for one '"',
// and commas inside are text. Contract: split_csv_line() never throws; it returns the fields (blanks
// around each unquoted field trimmed, a trailing '\r' dropped) with the 1-based column where each
// starts, or sets `error` (with its column) for an unterminated quote or text after a closing
// quote. A line break inside quotes is not supported: every reader here reads one record a line.
#include <string>
#include <string_view>
#include <vector>

namespace kp {

struct CsvField {
  std::string text;
  int col = 1;          // 1-based column of the field's first character (its quote, if quoted)
  bool quoted = false;  // written as "..." (so an empty quoted field is not a missing one)
};

struct CsvLine {
  std::vector<CsvField> fields;
  std::string error;  // empty when the line is well formed
  int error_col = 0;
};

CsvLine split_csv_line(std::string_view line);

// The field as a CSV writer must write it: quoted (inner quotes doubled) if it holds a comma, a
// quote, a line break or leading/trailing blanks; else as is.
std::string csv_quote(std::string_view field);

}  // namespace kp
