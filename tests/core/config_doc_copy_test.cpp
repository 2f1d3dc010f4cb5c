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

namespace kp {
namespace {

const char* kHardware =
    "name: t\n"                                                   // 1
    "chip:\n"                                                     // 2
    "  clock: 1 GHz\n"                                            // 3
    "  compute:\n"                                                // 4
    "    array: {rows: 4, cols: 4, dataflow: ws}\n"               // 5
    "    vector: {lanes: 8}\n"                                    // 6
    "  memory:\n"                                                 // 7
    "    sram: {capacity: 1 MiB, bandwidth: 100 GB/s}\n"          // 8
    "    dram: {kind: hbm2, capacity: 1 GiB, bandwidth: 10 GB/s}\n"  // 9
    "interconnect:\n"                                             // 10
    "  topology: ring\n"                                          // 11
    "  collective: ring\n"                                        // 12
    "  max_learners: 8\n"                                         // 13
    "  link: {bandwidth: 10 GB/s, latency: 1 us}\n"               // 14
    "energy: {mac: 1 pJ}\n"                                       // 15
    "cost: {per_chip_hour: 1 USD}\n";                             // 16

std::string write_temp(const std::string& text, const std::string& name) {
  const std::string dir = ::testing::TempDir() + "kp_" +
                          ::testing::UnitTest::GetInstance()->current_test_info()->name() + "/";
  (void)std::system(("mkdir -p " + dir).c_str());
  const std::string path = dir + name;
  std::ofstream(path) << text;
  return path;
}

std::string error_of(const ConfigDoc& doc) {
  try {
    (void)parse_hardware(doc);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

std::string with_line(int line, const std::string& with) {
  std::string text = kHardware;
  size_t start = 0;
  for (int i = 1; i < line; ++i) start = text.find('\n', start) + 1;
  return text.replace(start, text.find('\n', start) - start, with);
}

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
