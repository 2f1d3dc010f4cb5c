// Fuzz target: a SCALE-Sim topology CSV -> layers (parse_scalesim_topology), read as a conv and
// as a GEMM topology (the same bytes through both column layouts).
#include <sstream>

#include "core/config_error.h"
#include "fuzz/fuzz_input.h"
#include "sim/scalesim/topology.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = kp::fuzz::input_text(data, size);
  for (kp::TopologyFormat format : {kp::TopologyFormat::Conv, kp::TopologyFormat::Gemm}) {
    std::istringstream in(text);
    try {
      kp::parse_scalesim_topology(in, "fuzz.csv", format);
    } catch (const kp::ConfigError&) {
    }
  }
  return 0;
}
