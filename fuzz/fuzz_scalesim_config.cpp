// Fuzz target: a SCALE-Sim v2 .cfg (INI) -> ScaleSimConfig (parse_scalesim_config).
#include <sstream>

#include "core/config_error.h"
#include "fuzz/fuzz_input.h"
#include "sim/scalesim/scalesim_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(kp::fuzz::input_text(data, size));
  try {
    kp::parse_scalesim_config(in, "fuzz.cfg");
  } catch (const kp::ConfigError&) {
  }
  return 0;
}
