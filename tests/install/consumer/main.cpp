// Uses the installed kneepoint::sim: parses a hardware YAML held in memory and prints its peak MAC
// rate and the SCALE-Sim fold timing of one GEMM; then shows a bad value's error. install_test.sh
// checks the numbers against hand-computed ones.
#include <cstdio>
#include <string>

#include "core/config_error.h"
#include "core/hw_spec.h"
#include "sim/fold_timing.h"

namespace {

std::string chip_yaml(const std::string& clock) {
  return "name: consumer-chip\n"
         "chip:\n"
         "  compute:\n"
         "    array: {rows: 4, cols: 8, count: 2, dataflow: os}\n"
         "    vector: {lanes: 8}\n"
         "  clock: " + clock + "\n"
         "  memory:\n"
         "    sram: {capacity: 1 MiB, bandwidth: 64 GB/s}\n"
         "    dram: {kind: lpddr4, capacity: 1 GiB, bandwidth: 10 GB/s}\n"
         "interconnect:\n"
         "  topology: ring\n"
         "  collective: ring\n"
         "  max_learners: 4\n"
         "  link: {bandwidth: 1 GB/s}\n"
         "energy: {}\n"
         "cost: {}\n";
}

}  // namespace

int main() {
  const kp::HardwareSpec hw = kp::parse_hardware(kp::ConfigDoc::parse(chip_yaml("500 MHz"), "consumer.yaml"));
  const double peak = static_cast<double>(hw.array.rows * hw.array.cols * hw.array.count) * hw.clock_hz;
  std::printf("peak_macs_per_s %.2g\n", peak);
  const kp::FoldTiming ft = kp::fold_timing(hw.array.dataflow, hw.array.rows, hw.array.cols, {8, 16, 10});
  std::printf("fold_total_cycles %lld\n", static_cast<long long>(ft.total_cycles));
  try {
    kp::parse_hardware(kp::ConfigDoc::parse(chip_yaml("500 MHzz"), "consumer.yaml"));
    std::printf("bad_clock accepted\n");
    return 1;
  } catch (const kp::ConfigError& e) {
    std::string first = e.what();
    first = first.substr(0, first.find('\n'));
    std::printf("bad_clock %s\n", first.c_str());
  }
  return 0;
}
