// Trainer throughput: samples/s of full SGD+momentum updates (gather, forward, backward,
// optimizer) for the reference networks, and the ratio to the PyTorch 1.13 anchors of issue 5
// measured on this machine's CPU. `--threads T` runs T independent trials at once (the way a step
// curve uses several cores) and reports their summed samples/s; `--trial-threads N` runs each
// trial on N threads (its large products split across them). `--csv FILE` also writes the mean
// time per update of the MLP and of the Simple CNN for M = 1, 4, 16, ..., 4096 (to validate the
// simulator's host-CPU config). The load average is printed before and after: on a shared
// machine the wall figures are only as good as the load lets them be.
#include <stdlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/atomic_file.h"
#include "core/cpu_clock.h"
#include "tools/bench_timing.h"
#include "models/trainer/conv_winograd.h"
#include "models/trainer/trainer.h"
#include "models/trainer/zoo.h"

namespace {

using kp::thread_cpu_s;
using Timing = kp::BenchTiming;

void print_load(const char* when) {
  double l[3] = {0, 0, 0};
  if (getloadavg(l, 3) == 3) std::printf("load average %s: %.2f %.2f %.2f\n", when, l[0], l[1], l[2]);
}

// Mean time per update after a warm-up, measured over at least `min_s` seconds.
Timing time_per_update(const kp::ResolvedNetwork& net, const kp::Dataset& data, int64_t batch,
                       double min_s, int trial_threads) {
  kp::TrialConfig cfg;
  cfg.threads = trial_threads;
  cfg.batch = batch;
  cfg.optimizer.kind = kp::OptimizerKind::Momentum;
  cfg.optimizer.learning_rate = 0.01;
  cfg.optimizer.momentum = 0.9;
  kp::Trainer trainer(net, data, cfg);
  for (int i = 0; i < 2; ++i) trainer.step();  // and one more in time_of: 3 warm-up steps
  return kp::time_of([&] { trainer.step(); }, min_s);
}

// This core's single-precision FMA peak: 12 independent AVX-512 FMA chains (enough to cover a
// 4-cycle latency on two FMA ports), best of 3 runs of 50 M iterations, by thread CPU time.
// Register-only inline assembly: a compiler cannot reorder, spill or drop it. 0 without AVX-512.
double fma_peak_gflops() {
#if defined(__x86_64__)
  if (!__builtin_cpu_supports("avx512f")) return 0;
  double best = 0;
  for (int rep = 0; rep < 3; ++rep) {
    long n = 50'000'000;
    const long iters = n;
    const double c0 = thread_cpu_s();
#define KP_FMA(r) "vfmadd231ps %%zmm12, %%zmm13, %%zmm" #r "\n"
    __asm__ volatile(  // zmm0-13 only: this file is not built for AVX-512 (the runtime check is)
        "vxorps %%xmm12, %%xmm12, %%xmm12\n vxorps %%xmm13, %%xmm13, %%xmm13\n"
        "1:\n" KP_FMA(0) KP_FMA(1) KP_FMA(2) KP_FMA(3) KP_FMA(4) KP_FMA(5) KP_FMA(6) KP_FMA(7)
            KP_FMA(8) KP_FMA(9) KP_FMA(10) KP_FMA(11) "dec %0\n jnz 1b\n vzeroupper\n"
        : "+r"(n)
        :
        : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
          "xmm10", "xmm11", "xmm12", "xmm13", "cc");
#undef KP_FMA
    const double dt = thread_cpu_s() - c0;
    best = std::max(best, 12.0 * 32.0 * double(iters) / dt * 1e-9);  // 16 lanes x 2 FLOP
  }
  return best;
#else
  return 0;
#endif
}

struct Rate {
  double wall = 0, cpu = 0;  // summed samples/s of the concurrent trials, by wall and CPU time
  double cores_busy = 0;     // process CPU time / wall time during the measurement
  double update_wall_s = 0, update_cpu_s = 0;  // of trial 0, per update
};

// `threads` concurrent trials of `trial_threads` threads each.
Rate samples_per_s(const kp::ResolvedNetwork& net, const kp::Dataset& data, int64_t batch,
                   double min_s, int threads, int trial_threads) {
  std::vector<Timing> t(static_cast<size_t>(threads));
  std::vector<std::thread> pool;
  for (int i = 1; i < threads; ++i)
    pool.emplace_back([&, i] {
      t[static_cast<size_t>(i)] = time_per_update(net, data, batch, min_s, trial_threads);
    });
  t[0] = time_per_update(net, data, batch, min_s, trial_threads);
  for (auto& th : pool) th.join();
  Rate r;
  for (const Timing& x : t) {
    r.wall += double(batch) / x.wall_s;
    r.cpu += double(batch) / x.cpu_s;
  }
  r.cores_busy = t[0].process_cpu_s / t[0].wall_s;
  r.update_wall_s = t[0].wall_s;
  r.update_cpu_s = trial_threads > 1 ? t[0].process_cpu_s : t[0].cpu_s;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const char* csv = nullptr;
  double min_s = 1.0;
  int threads = 1, trial_threads = 1;
  const char* only = nullptr;  // e.g. "mlp1024": one case, for a profiler
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--csv") && i + 1 < argc) csv = argv[++i];
    else if (!std::strcmp(argv[i], "--seconds") && i + 1 < argc) min_s = std::stod(argv[++i]);
    else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) threads = std::stoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--trial-threads") && i + 1 < argc)
      trial_threads = std::stoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else {
      std::fprintf(stderr,
                   "usage: bench_trainer [--seconds S] [--threads T] [--trial-threads N] "
                   "[--csv FILE] [--only CASE]\n");
      return 2;
    }
  }
  if (threads < 1 || trial_threads < 1 || trial_threads > kp::kMaxTrialThreads) {
    std::fprintf(stderr, "bench_trainer: --threads >= 1, --trial-threads in [1, %d]\n",
                 kp::kMaxTrialThreads);
    return 2;
  }
  const kp::Dataset data = kp::make_synthetic_dataset(kp::Shape{1, 28, 28}, 10, 8192, 0, 1);
  const kp::ResolvedNetwork mlp = kp::resolve_network(kp::mlp_784_256_256_10());
  const kp::ResolvedNetwork cnn = kp::resolve_network(kp::simple_cnn());
  struct Case {
    const char* name;
    const kp::ResolvedNetwork* net;
    int64_t batch;
    double anchor;  // PyTorch 1.13 samples/s
  };
  const Case cases[] = {{"mlp", &mlp, 1, 3.7e3},    {"mlp", &mlp, 16, 35e3},
                        {"mlp", &mlp, 128, 110e3},  {"mlp", &mlp, 1024, 176e3},
                        {"cnn", &cnn, 128, 2.5e3}};
  auto label = [](const Case& c) { return std::string(c.name) + std::to_string(c.batch); };
  if (only && std::none_of(std::begin(cases), std::end(cases),
                           [&](const Case& c) { return label(c) == only; })) {
    std::fprintf(stderr, "bench_trainer: --only %s: expected mlp1, mlp16, mlp128, mlp1024 or "
                 "cnn128\n", only);
    return 2;
  }
  std::printf("%d concurrent trial(s) of %d thread(s) each\n", threads, trial_threads);
  if (trial_threads == 1)
    std::printf("(cpu: per-thread CPU time, i.e. excluding time the shared machine ran others)\n");
  else
    std::printf("(cpu: not defined for a multi-threaded trial; cpu ms = all threads' CPU time)\n");
  print_load("before");
  // FLOP per sample of one update in its products: forward 2*P, weight gradients 2*P, input
  // gradients 2*P except the first layer's (P = multiply-adds of the weight layers; conv1 as
  // im2col GEMMs; conv2 by Winograd F(m x m, 5x5), m = WinogradConv::tile_side(14, 14):
  // (m + 4)^2 points x ceil(14 / m)^2 tiles x 32 x 64 where the direct product has 196 pixels x
  // 800 x 64; the transforms' adds not counted).
  constexpr double kMlpFlop = 2.0 * (784 * 256 + 256 * 256 + 256 * 10) * 2 +
                              2.0 * (256 * 256 + 256 * 10);
  constexpr double kCnnRest = 2.0 * (784 * 25 * 32) * 2 + 2.0 * (3136 * 1024 + 1024 * 10) * 3;
  const int64_t tile = kp::trainer_detail::WinogradConv::tile_side(14, 14);
  const int64_t points = (tile + 4) * (tile + 4), tiles_across = (14 + tile - 1) / tile;
  const double cnn_flop =
      kCnnRest + 2.0 * double(points * tiles_across * tiles_across * 32 * 64) * 3;
  constexpr double kCnnDirectFlop = kCnnRest + 2.0 * (196 * 800 * 64) * 3;
  const double peak = fma_peak_gflops();
  std::printf("one core's FMA peak %.0f GFLOP/s: at most %.0f MLP or %.0f Simple-CNN samples/s "
              "per core (%.2f / %.1f MFLOP per sample; %.1f with direct convolutions: at most "
              "%.0f samples/s)\n",
              peak, peak * 1e9 / kMlpFlop, peak * 1e9 / cnn_flop, kMlpFlop * 1e-6,
              cnn_flop * 1e-6, kCnnDirectFlop * 1e-6, peak * 1e9 / kCnnDirectFlop);
  std::printf("(%%peak: samples/s by CPU time, or by wall for a multi-threaded trial, times FLOP per "
              "sample, over the peak of the cores used)\n");
  std::printf("%-4s %6s %12s %12s %10s %8s %8s %10s %10s %6s %6s\n", "net", "batch", "samples/s",
              "(cpu)", "pytorch", "ratio", "(cpu)", "wall ms", "cpu ms", "cores", "%peak");
  for (const Case& c : cases) {
    if (only && label(c) != only) continue;
    const Rate r = samples_per_s(*c.net, data, c.batch, min_s, threads, trial_threads);
    const double cpu = trial_threads == 1 ? r.cpu : 0.0;
    const double flop = c.net == &mlp ? kMlpFlop : cnn_flop;
    const double used = trial_threads == 1 ? cpu : r.wall;
    const double pct = peak > 0 ? 100.0 * used * flop / (peak * 1e9 * threads * trial_threads) : 0;
    std::printf("%-4s %6lld %12.0f %12.0f %10.0f %8.2f %8.2f %10.4f %10.4f %6.2f %6.1f\n",
                c.name, static_cast<long long>(c.batch), r.wall, cpu, c.anchor, r.wall / c.anchor,
                cpu / c.anchor, 1e3 * r.update_wall_s, 1e3 * r.update_cpu_s, r.cores_busy, pct);
    std::fflush(stdout);
  }
  print_load("after");
  if (csv) {
    std::string out = "network,batch,update_s,update_cpu_s,samples_per_s,load_1min\n";
    const std::pair<const char*, const kp::ResolvedNetwork*> nets[] = {
        {"mlp_784_256_256_10", &mlp}, {"simple_cnn", &cnn}};
    for (const auto& [name, net] : nets)
      for (int64_t m = 1; m <= 4096; m *= 4) {
        const Timing t = time_per_update(*net, data, m, min_s, trial_threads);
        char row[160];
        std::snprintf(row, sizeof row, "%s,%lld,%.9g,%.9g,%.6g,%.2f\n", name,
                      static_cast<long long>(m), t.wall_s,
                      trial_threads > 1 ? t.process_cpu_s : t.cpu_s, double(m) / t.wall_s,
                      kp::load_average_1min());
        out += row;
        std::fprintf(stderr, "csv: %s M=%lld %.6g s per update\n", name,
                     static_cast<long long>(m), t.wall_s);
      }
    try {  // a killed run leaves no half file
      kp::write_file_atomic(csv, out);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
      return 2;
    }
  }
  return 0;
}
