// Fuzz target: a curve measurement's trial journal -> its records (read_journal, with the
// fingerprint "fuzz": the seeds' first line is `# kneepoint curve journal fuzz`). A bad journal is
// one that does not match, whose torn last line is dropped, or a ConfigError at a corrupt line
// with more after it (curve_journal.h); anything else escaping is a finding.
#include "core/config_error.h"
#include "fuzz/fuzz_input.h"
#include "models/step_curve/measure/curve_journal.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = kp::fuzz::input_file(data, size, "curve.journal");
  try {
    const kp::CurveJournalContents c = kp::read_journal(path, "fuzz");
    if (c.end > size) __builtin_trap();  // the intact prefix lies inside the file
  } catch (const kp::ConfigError&) {
  }
  return 0;
}
