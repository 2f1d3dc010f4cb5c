// What one step of a step-curve measurement costs: per batch size, the time of one update
// (gather, forward, backward, optimizer) and of one validation pass over the 10,000 held-out
// images, by wall and by this thread's CPU time, and the evaluation overhead that follows from
// evaluating every K steps (the fixed K of the workload vs the samples-based rule of
// models/step_curve/measure/eval_rule.h). The figures decide the curve protocol's cost levers.
#include <sys/resource.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/cpu_clock.h"
#include "tools/bench_timing.h"
#include "models/step_curve/measure/eval_rule.h"
#include "models/trainer/trainer.h"
#include "models/trainer/zoo.h"

namespace {

using kp::load_average_1min;
using kp::time_of;
using Timing = kp::BenchTiming;

}  // namespace

int main(int argc, char** argv) {
  double min_s = 0.5;
  int64_t eval_samples = kp::k_default_eval_samples;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--seconds") && i + 1 < argc) min_s = std::stod(argv[++i]);
    else if (!std::strcmp(argv[i], "--eval-samples") && i + 1 < argc) eval_samples = std::stoll(argv[++i]);
    else {
      std::fprintf(stderr, "usage: bench_curve_cost [--seconds S] [--eval-samples S]\n");
      return 2;
    }
  }
  // Same shapes and sizes as Fashion-MNIST (50,000 train, 10,000 validation); the cost does not
  // depend on the pixel values.
  const kp::Dataset data = kp::make_synthetic_dataset(kp::Shape{1, 28, 28}, 10, 50000, 10000, 1);
  const kp::ResolvedNetwork mlp = kp::resolve_network(kp::mlp_784_256_256_10());
  std::printf("MLP 784-256-256-10, one thread; load average %.2f at start\n", load_average_1min());
  std::printf("eval = one pass over %lld validation images; overhead = eval time / training time\n",
              static_cast<long long>(data.validation.n));
  std::printf("%6s %12s %12s %12s %12s %10s %10s %10s\n", "batch", "update_ms", "(cpu)",
              "eval_ms", "(cpu)", "ovh K=50", "K(rule)", "ovh rule");
  for (int64_t m = 16; m <= 8192; m *= 2) {
    kp::TrialConfig cfg;
    cfg.batch = m;
    cfg.optimizer.kind = kp::OptimizerKind::Nesterov;
    cfg.optimizer.learning_rate = 0.01;
    cfg.optimizer.momentum = 0.9;
    kp::Trainer trainer(mlp, data, cfg);
    const Timing up = time_of([&] { trainer.step(); }, min_s);
    const Timing ev = time_of([&] { trainer.evaluate(data.validation); }, min_s);
    const int64_t k = kp::eval_every_for(m, eval_samples);
    std::printf("%6lld %12.3f %12.3f %12.2f %12.2f %9.0f%% %10lld %9.0f%%\n",
                static_cast<long long>(m), 1e3 * up.wall_s, 1e3 * up.cpu_s, 1e3 * ev.wall_s,
                1e3 * ev.cpu_s, 100 * ev.cpu_s / (50 * up.cpu_s), static_cast<long long>(k),
                100 * ev.cpu_s / (double(k) * up.cpu_s));
    std::fflush(stdout);
  }
  std::printf("load average %.2f at end\n", load_average_1min());
  return 0;
}
