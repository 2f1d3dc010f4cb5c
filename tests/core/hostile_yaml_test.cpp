// Hostile YAML: duplicate and complex keys, NUL bytes, alias bombs, values beyond the plausibility
// limits (core/limits.h) and `base:` files keep one clear error with file:line:col.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "core/config_doc.h"
#include "core/config_error.h"
#include "core/hw_spec.h"
#include "core/units.h"
#include "core/workload_spec.h"

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

const char* kWorkload =
    "name: w\n"                                                   // 1
    "input: {channels: 1, height: 28, width: 28}\n"               // 2
    "classes: 10\n"                                               // 3
    "network:\n"                                                  // 4
    "  - {kind: flatten}\n"                                       // 5
    "  - {kind: dense, units: 10}\n"                              // 6
    "dataset: {kind: synthetic}\n"                                // 7
    "optimizer: {kind: sgd, learning_rate: 0.1}\n"                // 8
    "target: {validation_error: 0.1}\n"                           // 9
    "step_curve: {source: law, n_inf: 100, alpha: 1000}\n";       // 10

std::string dir() {
  const std::string d = ::testing::TempDir() + "kp_hostile_" +
                        ::testing::UnitTest::GetInstance()->current_test_info()->name() + "/";
  (void)std::system(("mkdir -p " + d).c_str());
  return d;
}

std::string write(const std::string& name, const std::string& text) {
  const std::string path = dir() + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string replace_line(const std::string& text, int line, const std::string& with) {
  size_t start = 0;
  for (int i = 1; i < line; ++i) start = text.find('\n', start) + 1;
  return text.substr(0, start) + with + text.substr(text.find('\n', start));
}

// The first error of parsing `path`, with the folder removed from file names.
std::string first_error(const std::string& path, bool workload = false) {
  try {
    const ConfigDoc doc = ConfigDoc::load(path);
    if (workload) (void)parse_workload(doc); else (void)parse_hardware(doc);
  } catch (const ConfigError& e) {
    std::string msg = e.diagnostics().front().format();
    for (size_t p; (p = msg.find(dir())) != std::string::npos;) msg.replace(p, dir().size(), "");
    return msg;
  }
  return "no error";
}

std::string hw(int line, const std::string& with) {
  return first_error(write("hw.yaml", replace_line(kHardware, line, with)));
}
std::string wl(int line, const std::string& with) {
  return first_error(write("wl.yaml", replace_line(kWorkload, line, with)), true);
}

TEST(HostileYaml, ValidFilesParse) {
  EXPECT_EQ(first_error(write("hw.yaml", kHardware)), "no error");
  EXPECT_EQ(first_error(write("wl.yaml", kWorkload), true), "no error");
}

TEST(HostileYaml, DuplicateKeysNameBothPositions) {
  EXPECT_EQ(hw(1, "name: t\nname: u"), "hw.yaml:2:1: error: name: duplicate key (first at line 1, column 1)");
  EXPECT_EQ(hw(5, "    array: {rows: 4, cols: 4, rows: 8, dataflow: ws}"),
            "hw.yaml:5:31: error: chip.compute.array.rows: duplicate key (first at line 5, column 13)");
}

TEST(HostileYaml, ComplexKeyNulByteAndAliasBomb) {
  EXPECT_EQ(hw(16, "cost: {per_chip_hour: 1 USD}\n? [a, b]\n: 1"),
            "hw.yaml:17:3: error: expected a plain key, got a list");
  static const char kNul[] = "name: t\nchip: x\0y\n";  // 18 bytes before the terminator
  EXPECT_EQ(first_error(write("hw.yaml", std::string(kNul, sizeof kNul - 1))),
            "hw.yaml:2:8: error: NUL byte in the file: expected YAML text");
  std::string bomb = std::string(kHardware) + "extra:\n  a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  const std::string names = "abcdefgh";
  for (size_t i = 1; i < names.size(); ++i) {
    bomb += "  " + names.substr(i, 1) + ": &" + names.substr(i, 1) + " [";
    for (int j = 0; j < 10; ++j) bomb += (j ? ", *" : "*") + names.substr(i - 1, 1);
    bomb += "]\n";
  }
  const std::string e = first_error(write("hw.yaml", bomb));
  EXPECT_NE(e.find("error: extra."), std::string::npos) << e;
  EXPECT_NE(e.find("more than 1000000 YAML nodes counting every alias use"), std::string::npos) << e;
}

TEST(HostileYaml, FileTooLargeStatesTheLimit) {
  EXPECT_EQ(first_error(write("hw.yaml", std::string(kHardware) + "# " + std::string(5 << 20, 'x') + "\n")),
            "hw.yaml: error: file larger than 4 MiB, expected at most 4 MiB of YAML");
}

TEST(HostileYaml, PhysicalLimitsAreStated) {
  EXPECT_EQ(hw(3, "  clock: 1e-320 Hz"),
            "hw.yaml:3:10: error: chip.clock: expected a frequency in [1 MHz, 100 GHz], got \"1e-320 Hz\"");
  EXPECT_EQ(hw(8, "    sram: {capacity: 1e300 TB, bandwidth: 100 GB/s}"),
            "hw.yaml:8:22: error: chip.memory.sram.capacity: expected a size in [1 B, 1 TiB], got \"1e300 TB\"");
  EXPECT_EQ(hw(5, "    array: {rows: 9223372036854775807, cols: 4, dataflow: ws}"),
            "hw.yaml:5:19: error: chip.compute.array.rows: expected an integer in [1, 2^16 (65536)], got "
            "\"9223372036854775807\"");
  EXPECT_EQ(hw(13, "  max_learners: 99999999999999999999"),
            "hw.yaml:13:17: error: interconnect.max_learners: expected an integer in [1, 2^24 (16777216)], got "
            "\"99999999999999999999\"");
  EXPECT_EQ(hw(15, "energy: {mac: nan pJ}"),
            "hw.yaml:15:15: error: energy.mac: expected an energy with a unit (fJ, pJ, nJ, uJ, J), got \"nan pJ\"");
}

TEST(HostileYaml, WorkloadSizesAndProductsAreBounded) {
  EXPECT_EQ(wl(6, "  - {kind: dense, units: 9223372036854775807}"),
            "wl.yaml:6:26: error: network[1].units: expected an integer in [1, 2^24 (16777216)], got "
            "\"9223372036854775807\"");
  EXPECT_EQ(wl(2, "input: {channels: 1048576, height: 65536, width: 65536}"),
            "wl.yaml:2:19: error: input.channels: channels x height x width is 4503599627370496 elements, "
            "expected at most 2^32 (4294967296)");
  EXPECT_EQ(wl(5, "  - {repeat: 1000000000, layers: [{kind: relu}]}\n  - {kind: flatten}"),
            "wl.yaml:5:14: error: network[0].repeat: expected an integer in [1, 2^12 (4096)], got \"1000000000\"");
  // Nested repeats multiply: 4096 x 4096 layers are refused before they are copied.
  EXPECT_EQ(wl(5, "  - {repeat: 4096, layers: [{repeat: 4096, layers: [{kind: relu}]}]}\n  - {kind: flatten}"),
            "wl.yaml:5:14: error: network[0].repeat: expands to more than 2^16 (65536) layers");
  // A dense layer of 2^24 units on a 2^24-unit input: 2^48 parameters.
  EXPECT_EQ(wl(6, "  - {kind: dense, units: 16777216}\n  - {kind: dense, units: 16777216}"),
            "wl.yaml:7:5: error: network[2]: layer \"dense3\" (dense): more than 2^40 (1099511627776) parameters");
}

TEST(HostileYaml, BaseFilesKeepPositionsOfBothFiles) {
  write("base.yaml", replace_line(kHardware, 5, "    array: {rows: -3, cols: 4, dataflow: ws}"));
  EXPECT_EQ(first_error(write("derived.yaml", "base: base.yaml\nname: d\n")),
            "base.yaml:5:19: error: chip.compute.array.rows: expected an integer in [1, 2^16 (65536)], got \"-3\"");
  write("base.yaml", kHardware);
  EXPECT_EQ(first_error(write("derived.yaml", "base: base.yaml\nchip:\n  compute:\n    array:\n      colz: 3\n")),
            "derived.yaml:5:7: error: chip.compute.array.colz: unknown key (known here: cols, count, "
            "dataflow, kind, peak, rows)");
  EXPECT_EQ(first_error(write("derived.yaml", "base: base.yaml\nchip:\n  clock: 2 Ghz\n")),
            "derived.yaml:3:10: error: chip.clock: unknown unit \"Ghz\": expected a frequency with a unit (Hz, kHz, "
            "MHz, GHz), got \"2 Ghz\"");
}

TEST(HostileYaml, OverridesAreCheckedLikeFiles) {
  ConfigDoc doc = ConfigDoc::load(write("hw.yaml", kHardware));
  try {
    doc.apply_override("chip..clock=1 GHz");
    FAIL() << "accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "--set chip..clock=1 GHz: error: expected dotted.key=value (an empty part in "
                                     "\"chip..clock\")");
  }
  try {
    doc.apply_override("chip.clock={a: 1, a: 2}");
    FAIL() << "accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "--set chip.clock={a: 1, a: 2}: error: a: duplicate key (first at line 1, column 2)");
  }
}

TEST(HostileYaml, FormatsLimits) {
  EXPECT_EQ(format_limit(1 << 20), "2^20 (1048576)");
  EXPECT_EQ(format_limit(1000), "1000");
  EXPECT_EQ(format_quantity(1e6, Dim::Hertz), "1 MHz");
  EXPECT_EQ(format_quantity(1099511627776.0, Dim::Bytes), "1 TiB");
  EXPECT_EQ(format_quantity(1e16, Dim::BytesPerSecond), "10000 TB/s");
}

}  // namespace
}  // namespace kp
