#pragma once
// SCALE-Sim v2's .cfg (an INI file read by Python's configparser) as a plain Spec. Contract: a
// ScaleSimConfig returned by read_scalesim_config() is validated (array and SRAM sizes >= 1,
// dataflow and interface mode known); every problem of one file is reported in one ConfigError
// with file:line:col. Unknown keys and sections are errors, as everywhere in kneepoint.
#include <cstdint>
#include <istream>
#include <string>

#include "core/hw_spec.h"

namespace kp {

enum class InterfaceBandwidth { Calc, User };

struct ScaleSimConfig {
  std::string run_name;
  int64_t array_height = 0;  // PE rows (R)
  int64_t array_width = 0;   // PE cols (C)
  int64_t ifmap_sram_kb = 0, filter_sram_kb = 0, ofmap_sram_kb = 0;  // KiB (SCALE-Sim: 1024 B)
  int64_t ifmap_offset = 0, filter_offset = 10000000, ofmap_offset = 20000000;
  int64_t bandwidth_words_per_cycle = 10;  // per DRAM interface (ifmap, filter, ofmap each)
  Dataflow dataflow = Dataflow::OutputStationary;
  int64_t memory_banks = 1;  // accepted for compatibility; SCALE-Sim ignores it too
  InterfaceBandwidth interface_bandwidth = InterfaceBandwidth::Calc;
};

// origin names the input in diagnostics (a file path).
ScaleSimConfig parse_scalesim_config(std::istream& in, const std::string& origin);
ScaleSimConfig read_scalesim_config(const std::string& path);

}  // namespace kp
