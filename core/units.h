#pragma once
// Quantities with units, as written in YAML ("900 GB/s", "1.4 GHz", "32 MiB", "2 us").
// Contract: parse_quantity() returns the value in the SI base unit of the dimension (bytes, bytes/s,
// Hz, s, J, FLOP/s, USD, W, m^2) or throws UnitError whose message says which units are accepted. A bare number
// is an error for every dimension: a unit is part of the value.
#include <cstdint>
#include <stdexcept>
#include <string>

namespace kp {

enum class Dim { Bytes, BytesPerSecond, Hertz, Seconds, Joules, FlopsPerSecond, Dollars, Watts, Area };

class UnitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Human name of a dimension, e.g. "a bandwidth".
const char* dim_name(Dim dim);
// The accepted unit spellings, e.g. "B/s, KB/s, MB/s, GB/s, GiB/s, TB/s, Gb/s, Gbit/s".
std::string dim_units(Dim dim);
double parse_quantity(const std::string& text, Dim dim);
// `si` (in the dimension's base unit) in the largest unit not above it, e.g. 1e6 Hz -> "1 MHz".
std::string format_quantity(double si, Dim dim);
// "2^20 (1048576)" for a power of two, the decimal number otherwise: plausibility limits.
std::string format_limit(int64_t v);
// A whole decimal integer and nothing else (no "4.5", no "12abc"); false otherwise.
bool parse_int64(const std::string& text, int64_t& out);

}  // namespace kp
