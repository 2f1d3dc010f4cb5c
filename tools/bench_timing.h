#pragma once
// The benchmarks' timer: the mean time of one call of f after one warm-up call, over at least
// min_s seconds and 3 calls, by wall clock, this thread's CPU time (robust to a shared machine)
// and the whole process's CPU time (all threads of a multi-threaded call).
#include <chrono>
#include <cstdint>
#include <fstream>
#include <string>

#include "core/cpu_clock.h"

namespace kp {

struct BenchTiming {
  double wall_s = 0, cpu_s = 0, process_cpu_s = 0;  // per call
};

template <class F>
BenchTiming time_of(F&& f, double min_s) {
  using Clock = std::chrono::steady_clock;
  f();
  int64_t n = 0;
  const double c0 = thread_cpu_s(), p0 = process_cpu_s();
  const auto t0 = Clock::now();
  double elapsed = 0;
  do {
    f();
    ++n;
    elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
  } while (elapsed < min_s || n < 3);
  return {elapsed / double(n), (thread_cpu_s() - c0) / double(n),
          (process_cpu_s() - p0) / double(n)};
}

// Seconds of wall time since t0.
inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The 1, 5 and 15 minute load averages: the benchmarks print them because the cores are shared.
inline std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return a + " " + b + " " + c;
}

}  // namespace kp
