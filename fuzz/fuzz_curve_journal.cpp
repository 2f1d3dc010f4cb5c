// Fuzz target: a curve measurement's trial journal -> its records (read_journal, with the
// fingerprint "fuzz": the seeds' first line is `# kneepoint curve journal fuzz`). read_journal
// documents no exception: a bad journal is one that does not match, or whose records stop early.
#include "fuzz/fuzz_input.h"
#include "models/step_curve/measure/curve_journal.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = kp::fuzz::input_file(data, size, "curve.journal");
  const kp::JournalContents c = kp::read_journal(path, "fuzz");
  if (c.end > size) __builtin_trap();  // the intact prefix lies inside the file
  return 0;
}
