#include "sim/scalesim/compute_report.h"

#include <charconv>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/config_error.h"
#include "core/csv_line.h"
#include "sim/scalesim/text_fields.h"

namespace kp {

const char* const kComputeReportHeader =
    "LayerID, Total Cycles, Stall Cycles, Overall Util %, Mapping Efficiency %, Compute Util %,";

std::string python_float_repr(double v) {
  char buf[64];
  // Python switches to exponent notation below 1e-4 and from 1e16; otherwise fixed.
  const double a = v < 0 ? -v : v;
  const bool sci = a != 0 && (a < 1e-4 || a >= 1e16);
  auto res = sci ? std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific)
                 : std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
  std::string s(buf, res.ptr);
  if (!sci && s.find('.') == std::string::npos) s += ".0";
  return s;
}

void write_compute_report(std::ostream& out, const std::vector<ComputeReportRow>& rows) {
  out << kComputeReportHeader << '\n';
  for (const ComputeReportRow& r : rows) {
    out << r.layer_id << ", " << r.total_cycles << ", " << r.stall_cycles << ", "
        << python_float_repr(r.overall_util_pct) << ", " << python_float_repr(r.mapping_efficiency_pct)
        << ", " << python_float_repr(r.compute_util_pct) << ",\n";
  }
}

std::vector<ComputeReportRow> parse_compute_report(std::istream& in, const std::string& origin) {
  using scalesim_text::trim;
  std::vector<ComputeReportRow> rows;
  std::vector<Diagnostic> diags;
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line_no == 1 || trim(line, 1).text.empty()) continue;
    const CsvLine split = split_csv_line(line);
    if (!split.error.empty()) {
      diags.push_back({origin, line_no, split.error_col, "", split.error});
      continue;
    }
    std::vector<std::string> f;
    for (const CsvField& cell : split.fields) f.push_back(cell.text);
    while (!f.empty() && f.back().empty()) f.pop_back();
    if (f.size() != 6) {
      diags.push_back({origin, line_no, 1, "", "expected 6 columns, got " + std::to_string(f.size())});
      continue;
    }
    ComputeReportRow r;
    auto i0 = scalesim_text::parse_int(f[0]), i1 = scalesim_text::parse_int(f[1]),
         i2 = scalesim_text::parse_int(f[2]);
    if (!i0 || !i1 || !i2) {
      diags.push_back({origin, line_no, 1, "", "expected integer LayerID, Total Cycles, Stall Cycles"});
      continue;
    }
    r.layer_id = *i0, r.total_cycles = *i1, r.stall_cycles = *i2;
    r.overall_util_pct = std::strtod(f[3].c_str(), nullptr);
    r.mapping_efficiency_pct = std::strtod(f[4].c_str(), nullptr);
    r.compute_util_pct = std::strtod(f[5].c_str(), nullptr);
    rows.push_back(r);
  }
  if (!diags.empty()) throw ConfigError(std::move(diags));
  return rows;
}

std::vector<ComputeReportRow> read_compute_report(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError(path, "cannot open the COMPUTE_REPORT file");
  return parse_compute_report(in, path);
}

}  // namespace kp
