#pragma once
// SCALE-Sim v2's COMPUTE_REPORT.csv, byte-compatible: header
// "LayerID, Total Cycles, Stall Cycles, Overall Util %, Mapping Efficiency %, Compute Util %,"
// and one row per layer, floats printed as Python's repr() does (shortest round trip, "98.0").
#include <cstdint>
#include <istream>
#include <ostream>
#include <string>
#include <vector>

namespace kp {

struct ComputeReportRow {
  int64_t layer_id = 0;
  int64_t total_cycles = 0;
  int64_t stall_cycles = 0;
  double overall_util_pct = 0;
  double mapping_efficiency_pct = 0;
  double compute_util_pct = 0;
};

extern const char* const kComputeReportHeader;

// Python repr() of a finite double: shortest round-trip digits, ".0" on integral values.
std::string python_float_repr(double v);

void write_compute_report(std::ostream& out, const std::vector<ComputeReportRow>& rows);

// Reads a SCALE-Sim COMPUTE_REPORT.csv (ours or SCALE-Sim's); ConfigError on a malformed file.
std::vector<ComputeReportRow> parse_compute_report(std::istream& in, const std::string& origin);
std::vector<ComputeReportRow> read_compute_report(const std::string& path);

}  // namespace kp
