// Fuzz target: a workload YAML file -> WorkloadSpec (ConfigDoc::load, parse_workload).
#include "core/config_doc.h"
#include "core/workload_spec.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = kp::fuzz::input_file(data, size, "workload.yaml");
  try {
    kp::parse_workload(kp::ConfigDoc::load(path));
  } catch (const kp::ConfigError&) {
  }
  return 0;
}
