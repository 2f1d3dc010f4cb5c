// Trainer throughput: samples/s of full SGD+momentum updates (gather, forward, backward,
// optimizer) for the reference networks, and the ratio to the PyTorch 1.13 anchors of issue 5
// measured on this machine's CPU. `--threads T` runs T independent trials at once (the way a step
// curve uses several cores; each trial is single-threaded) and reports their summed samples/s. `--csv FILE` also writes the mean time per update of the
// MLP for M = 1, 4, 16, ..., 4096 (to validate the simulator's host-CPU config).
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "models/trainer/trainer.h"
#include "models/trainer/zoo.h"

namespace {

using Clock = std::chrono::steady_clock;

double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

struct Timing {
  double wall_s = 0, cpu_s = 0;  // per update; cpu = this thread's CPU time (robust to sharing)
};

// Mean time per update after a warm-up, measured over at least `min_s` seconds.
Timing time_per_update(const kp::ResolvedNetwork& net, const kp::Dataset& data, int64_t batch,
                       double min_s) {
  kp::TrialConfig cfg;
  cfg.batch = batch;
  cfg.optimizer.kind = kp::OptimizerKind::Momentum;
  cfg.optimizer.learning_rate = 0.01;
  cfg.optimizer.momentum = 0.9;
  kp::Trainer trainer(net, data, cfg);
  for (int i = 0; i < 3; ++i) trainer.step();
  int64_t steps = 0;
  const double c0 = thread_cpu_s();
  const auto t0 = Clock::now();
  double elapsed = 0;
  do {
    trainer.step();
    ++steps;
    elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
  } while (elapsed < min_s || steps < 3);
  return {elapsed / double(steps), (thread_cpu_s() - c0) / double(steps)};
}

// Summed samples/s of `threads` concurrent trials, by wall time and by CPU time.
std::pair<double, double> samples_per_s(const kp::ResolvedNetwork& net, const kp::Dataset& data,
                                        int64_t batch, double min_s, int threads) {
  std::vector<Timing> t(static_cast<size_t>(threads));
  std::vector<std::thread> pool;
  for (int i = 1; i < threads; ++i)
    pool.emplace_back([&, i] { t[static_cast<size_t>(i)] = time_per_update(net, data, batch, min_s); });
  t[0] = time_per_update(net, data, batch, min_s);
  for (auto& th : pool) th.join();
  double wall = 0, cpu = 0;
  for (const Timing& x : t) {
    wall += double(batch) / x.wall_s;
    cpu += double(batch) / x.cpu_s;
  }
  return {wall, cpu};
}

}  // namespace

int main(int argc, char** argv) {
  const char* csv = nullptr;
  double min_s = 1.0;
  int threads = 1;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--csv") && i + 1 < argc) csv = argv[++i];
    else if (!std::strcmp(argv[i], "--seconds") && i + 1 < argc) min_s = std::stod(argv[++i]);
    else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) threads = std::stoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: bench_trainer [--seconds S] [--threads T] [--csv FILE]\n");
      return 2;
    }
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
  std::printf("%d concurrent single-threaded trial(s)\n", threads);
  std::printf("(cpu: per-thread CPU time, i.e. excluding time the shared machine ran others)\n");
  std::printf("%-4s %6s %12s %12s %10s %8s %8s\n", "net", "batch", "samples/s", "(cpu)", "pytorch",
              "ratio", "(cpu)");
  for (const Case& c : cases) {
    const auto [sps, cpu] = samples_per_s(*c.net, data, c.batch, min_s, threads);
    std::printf("%-4s %6lld %12.0f %12.0f %10.0f %8.2f %8.2f\n", c.name,
                static_cast<long long>(c.batch), sps, cpu, c.anchor, sps / c.anchor, cpu / c.anchor);
    std::fflush(stdout);
  }
  if (csv) {
    std::FILE* f = std::fopen(csv, "w");
    if (!f) {
      std::fprintf(stderr, "%s: cannot write\n", csv);
      return 2;
    }
    std::fprintf(f, "network,batch,update_s,update_cpu_s,samples_per_s\n");
    for (int64_t m = 1; m <= 4096; m *= 4) {
      const Timing t = time_per_update(mlp, data, m, min_s);
      std::fprintf(f, "mlp_784_256_256_10,%lld,%.9g,%.9g,%.6g\n", static_cast<long long>(m),
                   t.wall_s, t.cpu_s, double(m) / t.wall_s);
    }
    std::fclose(f);
  }
  return 0;
}
