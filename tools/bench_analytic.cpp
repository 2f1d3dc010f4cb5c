// Benchmark: analytic (M, P) points per second of wall time, per workload, on the TPU-v3-like pod.
// Prints figures; asserts nothing (speed targets are read, not unit-tested). Issue 7's goal:
// >= 1e6 analytic points per second.
#include <chrono>
#include <cstdio>
#include <string>

#include "models/time_model/time_model.h"
#include "tools/study/case_loader.h"

int main(int argc, char** argv) {
  const std::string src = argc > 1 ? argv[1] : KP_SOURCE_DIR;
  const char* workloads[] = {"fmnist_mlp", "fmnist_simple_cnn", "resnet18_cifar10", "resnet50_imagenet"};
  std::printf("%-20s %8s %14s %14s\n", "workload", "ops", "points", "points/s");
  for (const char* w : workloads) {
    const kp::Case c = kp::load_case(src + "/hw_configs/tpu_v3_pod.yaml", src + "/workloads/" + w + ".yaml");
    const auto model = kp::make_update_model(c, "analytic");
    double sink = 0;
    int64_t points = 0;
    const auto t0 = std::chrono::steady_clock::now();
    double elapsed = 0;
    while (elapsed < 1.0) {
      for (int64_t p = 1; p <= 1024; p *= 2)
        for (int64_t m = p; m <= 65536; m *= 2) {
          sink += kp::evaluate_point(*model, c.law, c.hw, m, p).t_total_s;
          ++points;
        }
      elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    std::printf("%-20s %8zu %14lld %14.3g\n", w, c.step.ops.size(), static_cast<long long>(points), points / elapsed);
    if (sink < 0) std::printf("impossible\n");
  }
  return 0;
}
