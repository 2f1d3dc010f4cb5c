// ConfigDoc::deep_copy: a study parses each base file once and applies every design's overrides to
// a copy, so a copy must give exactly the errors (file:line:col, or the --set argument) and values
// the file gives, and overrides on it must leave the original as it was.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "core/config_doc.h"
#include "core/config_error.h"
#include "core/hw_spec.h"
#include "tests/core/config_fixture.h"

namespace kp {
namespace {

using test::write_temp;
const char* const kHardware = test::kMinimalHardware;

std::string error_of(const ConfigDoc& doc) {
  try {
    (void)parse_hardware(doc);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

std::string with_line(int line, const std::string& with) { return test::replace_line(kHardware, line, with); }

}  // namespace

TEST(ConfigDocCopy, ErrorsOfACopyAndOfACopysCopyAreTheFilesOwn) {
  // A bad unit (a value's position), an unknown key (a key's), a missing key (its parent map's).
  const std::string cases[][2] = {{"3", "  clock: 1 Ghz"},
                                  {"5", "    array: {rows: 4, cols: 4, dataflow: ws, colz: 2}"},
                                  {"9", "    dram: {kind: hbm2, capacity: 1 GiB}"}};
  for (const auto& c : cases) {
    const std::string path = write_temp(with_line(std::stoi(c[0]), c[1]), "hw" + c[0] + ".yaml");
    const ConfigDoc loaded = ConfigDoc::load(path);
    const std::string expected = error_of(loaded);
    EXPECT_EQ(expected.rfind(path + ":" + c[0] + ":", 0), 0u) << expected;
    const ConfigDoc copy = loaded.deep_copy();
    EXPECT_EQ(error_of(copy), expected);
    EXPECT_EQ(error_of(copy.deep_copy()), expected);
  }
}

TEST(ConfigDocCopy, AKeyMergedFromAChildFileKeepsTheChildsPosition) {
  (void)write_temp(kHardware, "base.yaml");
  const std::string child = write_temp("base: base.yaml\nchip:\n  clock: 2 Ghz\n", "child.yaml");
  const ConfigDoc copy = ConfigDoc::load(child).deep_copy().deep_copy();
  EXPECT_EQ(error_of(copy).rfind(child + ":3:10: error: chip.clock: unknown unit \"Ghz\"", 0), 0u) << error_of(copy);
}

TEST(ConfigDocCopy, OverridesOnACopyLeaveTheOriginalAsItWas) {
  const ConfigDoc base = ConfigDoc::load(write_temp(kHardware, "hw.yaml")).deep_copy();
  ConfigDoc a = base.deep_copy();
  a.apply_override("chip.compute.array.rows=8");
  a.apply_override("chip.clock=2 GHz");
  ConfigDoc b = base.deep_copy();
  b.apply_override("chip.compute.array={rows: 16, cols: 2, dataflow: os}");
  EXPECT_EQ(parse_hardware(a).array.rows, 8);
  EXPECT_DOUBLE_EQ(parse_hardware(a).clock_hz, 2e9);
  EXPECT_EQ(parse_hardware(b).array.rows, 16);
  EXPECT_EQ(parse_hardware(b).array.cols, 2);
  const HardwareSpec original = parse_hardware(base);
  EXPECT_EQ(original.array.rows, 4);
  EXPECT_EQ(original.array.cols, 4);
  EXPECT_DOUBLE_EQ(original.clock_hz, 1e9);
  // A bad override on a copy names the argument, as on the file; a copy of it still does.
  ConfigDoc bad = base.deep_copy();
  bad.apply_override("chip.clock=3 Ghz");
  EXPECT_EQ(error_of(bad).rfind("--set chip.clock=3 Ghz: error: chip.clock: unknown unit", 0), 0u) << error_of(bad);
  EXPECT_EQ(error_of(bad.deep_copy()), error_of(bad));
}

}  // namespace kp
