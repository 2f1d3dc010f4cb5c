// Fuzz target: a study YAML file -> StudySpec (ConfigDoc::load, parse_study; its sweep is checked
// against the hardware and workload files it names).
#include "core/config_doc.h"
#include "tools/study/study_spec.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = kp::fuzz::input_file(data, size, "study.yaml");
  try {
    kp::parse_study(kp::ConfigDoc::load(path));
  } catch (const kp::ConfigError&) {
  }
  return 0;
}
