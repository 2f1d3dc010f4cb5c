// Fuzz target: a study journal (DIR/study.journal) -> its records (read_study_journal).
#include "core/config_error.h"
#include "fuzz/fuzz_input.h"
#include "tools/study/study_journal.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = kp::fuzz::input_file(data, size, "study.journal");
  try {
    kp::read_study_journal(path);
  } catch (const kp::ConfigError&) {
  }
  return 0;
}
