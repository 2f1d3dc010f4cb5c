// Fuzz target: a hardware YAML file -> HardwareSpec (ConfigDoc::load, parse_hardware).
#include "core/config_doc.h"
#include "core/hw_spec.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = kp::fuzz::input_file(data, size, "hw.yaml");
  try {
    kp::parse_hardware(kp::ConfigDoc::load(path));
  } catch (const kp::ConfigError&) {
  }
  return 0;
}
