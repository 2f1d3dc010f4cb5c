#include "core/units.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace kp {
namespace {

struct UnitDef {
  const char* name;
  double scale;
};

// Decimal prefixes for SI-style units, binary ones only where people actually write them (KiB...).
const std::vector<UnitDef>& units_of(Dim dim) {
  static const std::vector<UnitDef> bytes = {
      {"B", 1.0},     {"KB", 1e3},         {"KiB", 1024.0},         {"MB", 1e6},
      {"MiB", 1048576.0}, {"GB", 1e9},     {"GiB", 1073741824.0},   {"TB", 1e12},
      {"TiB", 1099511627776.0}};
  static const std::vector<UnitDef> bandwidth = {
      {"B/s", 1.0},  {"KB/s", 1e3},  {"MB/s", 1e6},  {"GB/s", 1e9},   {"GiB/s", 1073741824.0},
      {"TB/s", 1e12}, {"Mb/s", 1e6 / 8}, {"Gb/s", 1e9 / 8}, {"Gbit/s", 1e9 / 8}, {"Tb/s", 1e12 / 8}};
  static const std::vector<UnitDef> hertz = {{"Hz", 1.0}, {"kHz", 1e3}, {"MHz", 1e6}, {"GHz", 1e9}};
  static const std::vector<UnitDef> seconds = {
      {"ps", 1e-12}, {"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}};
  static const std::vector<UnitDef> joules = {
      {"fJ", 1e-15}, {"pJ", 1e-12}, {"nJ", 1e-9}, {"uJ", 1e-6}, {"J", 1.0}};
  static const std::vector<UnitDef> flops = {{"FLOP/s", 1.0}, {"GFLOP/s", 1e9}, {"TFLOP/s", 1e12},
                                             {"PFLOP/s", 1e15}};
  static const std::vector<UnitDef> dollars = {{"USD", 1.0}, {"$", 1.0}};
  static const std::vector<UnitDef> watts = {{"mW", 1e-3}, {"W", 1.0}, {"kW", 1e3}};
  static const std::vector<UnitDef> area = {{"um2", 1e-12}, {"mm2", 1e-6}, {"cm2", 1e-4}};
  switch (dim) {
    case Dim::Bytes: return bytes;
    case Dim::BytesPerSecond: return bandwidth;
    case Dim::Hertz: return hertz;
    case Dim::Seconds: return seconds;
    case Dim::Joules: return joules;
    case Dim::FlopsPerSecond: return flops;
    case Dim::Dollars: return dollars;
    case Dim::Watts: return watts;
    case Dim::Area: return area;
  }
  std::abort();
}

}  // namespace

const char* dim_name(Dim dim) {
  switch (dim) {
    case Dim::Bytes: return "a size";
    case Dim::BytesPerSecond: return "a bandwidth";
    case Dim::Hertz: return "a frequency";
    case Dim::Seconds: return "a time";
    case Dim::Joules: return "an energy";
    case Dim::FlopsPerSecond: return "a throughput";
    case Dim::Dollars: return "a price";
    case Dim::Watts: return "a power";
    case Dim::Area: return "an area";
  }
  std::abort();
}

std::string dim_units(Dim dim) {
  std::string out;
  for (const UnitDef& u : units_of(dim)) {
    if (!out.empty()) out += ", ";
    out += u.name;
  }
  return out;
}

std::string format_quantity(double si, Dim dim) {
  const UnitDef* best = &units_of(dim).front();
  for (const UnitDef& u : units_of(dim))
    if (u.scale <= si * (1 + 1e-12) && u.scale > best->scale) best = &u;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g %s", si / best->scale, best->name);
  return buf;
}

std::string format_limit(int64_t v) {
  if (v > 1 && (v & (v - 1)) == 0) {
    int k = 0;
    while ((int64_t{1} << k) != v) ++k;
    return "2^" + std::to_string(k) + " (" + std::to_string(v) + ")";
  }
  return std::to_string(v);
}

bool parse_int64(const std::string& text, int64_t& out) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || std::isspace(static_cast<unsigned char>(text[0]))) return false;
  out = v;
  return true;
}

double parse_quantity(const std::string& text, Dim dim) {
  const std::string expected = std::string("expected ") + dim_name(dim) + " with a unit (" +
                               dim_units(dim) + "), got \"" + text + "\"";
  const char* begin = text.c_str();
  char* end = nullptr;
  const double value = std::strtod(begin, &end);
  if (end == begin || !std::isfinite(value)) throw UnitError(expected);
  std::string unit(end);
  while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.front()))) unit.erase(0, 1);
  while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.back()))) unit.pop_back();
  if (unit.empty()) throw UnitError(expected);
  for (const UnitDef& u : units_of(dim)) {
    if (unit == u.name) return value * u.scale;
  }
  throw UnitError("unknown unit \"" + unit + "\": " + expected);
}

}  // namespace kp
