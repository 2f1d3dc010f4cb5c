#pragma once
// Shared by the core parser tests: a valid minimal hardware file (tests replace one line; the
// line numbers below, 1-based, are what their expected errors cite), a line replacer, and a
// writer of temporary files, one folder per test (ctest runs tests in parallel processes).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace kp::test {

// A valid hardware file; tests replace one line (line numbers below are 1-based).
inline const char* const kMinimalHardware =
    "name: t\n"                              // 1
    "chip:\n"                                // 2
    "  clock: 1 GHz\n"                       // 3
    "  compute:\n"                           // 4
    "    array: {rows: 4, cols: 4, dataflow: ws}\n"  // 5
    "    vector: {lanes: 8}\n"               // 6
    "  memory:\n"                            // 7
    "    sram: {capacity: 1 MiB, bandwidth: 100 GB/s}\n"  // 8
    "    dram: {kind: hbm2, capacity: 1 GiB, bandwidth: 10 GB/s}\n"  // 9
    "interconnect:\n"                        // 10
    "  topology: ring\n"                     // 11
    "  collective: ring\n"                   // 12
    "  max_learners: 8\n"                    // 13
    "  link: {bandwidth: 10 GB/s, latency: 1 us}\n"  // 14
    "energy: {mac: 1 pJ}\n"                  // 15
    "cost: {per_chip_hour: 1 USD}\n";        // 16

inline std::string replace_line(const std::string& text, int line, const std::string& with) {
  size_t start = 0;
  for (int i = 1; i < line; ++i) start = text.find('\n', start) + 1;
  const size_t end = text.find('\n', start);
  return text.substr(0, start) + with + text.substr(end);
}

// ctest runs tests in parallel processes: each test writes into its own folder.
inline std::string write_temp(const std::string& text, const std::string& name) {
  const std::string dir = ::testing::TempDir() + "kp_" +
                          ::testing::UnitTest::GetInstance()->current_test_info()->name() + "/";
  (void)std::system(("mkdir -p " + dir).c_str());
  const std::string path = dir + name;
  std::ofstream(path) << text;
  return path;
}

}  // namespace kp::test
