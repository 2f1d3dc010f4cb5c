#pragma once
// CPU time and load, as kneepoint states the cost of a run (curve provenance, benchmarks): on a
// shared machine the wall time alone says little, so runs report the CPU time they used and the
// 1-minute load average next to it. Linux/POSIX clocks; seconds as double.
#include <stdlib.h>  // getloadavg
#include <time.h>

namespace kp {

// CPU time of the calling thread (robust to other processes sharing the cores).
inline double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// CPU time of the whole process, all threads.
inline double process_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// The 1-minute load average, or -1 where the system does not give it.
inline double load_average_1min() {
  double l[1] = {0};
  return getloadavg(l, 1) == 1 ? l[0] : -1;
}

}  // namespace kp
