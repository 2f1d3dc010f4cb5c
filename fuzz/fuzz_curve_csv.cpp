// Fuzz target: a step-curve CSV file -> points and provenance (read_curve_csv,
// read_curve_provenance).
#include "core/config_error.h"
#include "fuzz/fuzz_input.h"
#include "models/step_curve/curve_csv.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = kp::fuzz::input_file(data, size, "curve.csv");
  kp::read_curve_provenance(path);
  try {
    kp::read_curve_csv(path);
  } catch (const kp::ConfigError&) {
  }
  return 0;
}
