// Benchmarks (print figures; assert nothing: speed targets are read, not unit-tested).
// 1. Analytic (M, P) points per second of wall time, per workload, on the TPU-v3-like pod
//    (issue 7's goal: >= 1e6).
// 2. Whole studies through the real runner (journal, 2 jobs): a ~10,000-point sweep with the top
//    10 designs re-simulated in SystemC (goal: <= 30 s on 2 cores), and 10,000 design points.
// 3. 10^4 ResNet-50 designs x 9 (M, P) points, analytic, with the tile-plan cache off and on
//    (goal <= 3 s on 2 cores).
// 4. One SystemC training update of the GPT-3 1.3B decoder on one H100-like chip (issue 34's goal:
//    <= 0.5 s wall), beside its analytic twin.
// Usage: bench_analytic [SOURCE_DIR [--quick|--designs|--systemc]]   (--quick: part 1 only;
// --designs: 3 only; --systemc: 4 only)
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "core/config_doc.h"
#include "models/time_model/time_model.h"
#include "sim/tiled_cost_cache.h"
#include "tools/bench_timing.h"
#include "tools/study/case_loader.h"
#include "tools/study/design_eval.h"
#include "tools/study/design_space.h"
#include "tools/study/study_runner.h"

namespace {

using kp::load_average;
using kp::seconds_since;

void bench_points(const std::string& src) {
  const char* workloads[] = {"fmnist_mlp",        "fmnist_simple_cnn", "resnet18_cifar10",
                             "resnet50_imagenet", "gpt2_small",        "bert_large_squad"};
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
      elapsed = seconds_since(t0);
    }
    std::printf("%-20s %8zu %14lld %14.3g\n", w, c.step.ops.size(), static_cast<long long>(points), points / elapsed);
    if (sink < 0) std::printf("impossible\n");
  }
}

// Runs `yaml` (a study text, paths absolute) with the top 10 designs verified in SystemC, 2 jobs,
// journal in /tmp; then times the verification alone (the same 10 points, one forked pool).
void bench_study(const std::string& title, const std::string& yaml) {
  const std::string dir = "/tmp/kp_bench_study_" + std::to_string(::getpid());
  kp::StudySpec spec = kp::parse_study(kp::ConfigDoc::parse(yaml, dir + "/bench.yaml"));
  spec.verify_top = 10;
  (void)std::system(("rm -rf " + dir).c_str());
  kp::RunOptions opt;
  opt.out_dir = dir;
  opt.jobs = 2;
  auto t0 = std::chrono::steady_clock::now();
  const kp::StudyResult r = kp::run_study(spec, opt);
  const double total_s = seconds_since(t0);
  (void)std::system(("rm -rf " + dir).c_str());
  size_t points = 0;
  std::vector<kp::DesignEvaluator::PointRef> top;
  for (const kp::SystemResult& s : r.systems) {
    points += s.prediction.points.size();
    if (s.verify.done) top.push_back({s.index, s.chosen.batch, s.chosen.learners});
  }
  const kp::DesignEvaluator eval(spec, 2);
  t0 = std::chrono::steady_clock::now();
  (void)eval.evaluate_systemc(top);
  const double verify_s = seconds_since(t0);
  std::printf("%s: %zu design points, %zu (M, P) grid points, %zu verified in SystemC\n", title.c_str(),
              kp::design_count(spec), points, top.size());
  std::printf("  whole study (analytic sweep, journal, top 10 in SystemC): %.2f s wall   [goal <= 30 s]\n", total_s);
  std::printf("  of which the SystemC verification of the 10 (timed alone): %.2f s wall\n", verify_s);
  std::printf("  load average after: %s (2 cores, shared: wall times are upper bounds)\n", load_average().c_str());
}

// 10 x 10 x 10 x 10 = 10,000 designs x 9 (M, P) points, analytic only (no SystemC verification),
// 2 jobs, with the tile-plan cache off and on, side by side.
void bench_designs(const std::string& head) {
  const std::string yaml = head +
                           "sweep:\n"
                           "  chip.compute.array.rows: {from: 32, to: 320, step: 32}\n"
                           "  chip.memory.sram.capacity: {from: 4 MiB, to: 40 MiB, step: 4}\n"
                           "  interconnect.link.bandwidth: {from: 25 GB/s, to: 250 GB/s, step: 25}\n"
                           "  chip.clock: {from: 500 MHz, to: 1400 MHz, step: 100}\n"
                           "batches: [4096, 16384, 65536]\nlearners: [64, 256, 1024]\n";
  for (bool cache : {false, true}) {
    kp::set_tiled_cost_cache(cache);
    const std::string dir = "/tmp/kp_bench_designs_" + std::to_string(::getpid());
    kp::StudySpec spec = kp::parse_study(kp::ConfigDoc::parse(yaml, dir + "/bench.yaml"));
    spec.verify_top = 0;
    (void)std::system(("rm -rf " + dir).c_str());
    kp::RunOptions opt;
    opt.out_dir = dir;
    opt.jobs = 2;
    const auto t0 = std::chrono::steady_clock::now();
    const double cpu0 = kp::process_cpu_s();
    const kp::StudyResult r = kp::run_study(spec, opt);
    const double total_s = seconds_since(t0), cpu_s = kp::process_cpu_s() - cpu0;
    (void)std::system(("rm -rf " + dir).c_str());
    size_t points = 0;
    double sum = 0;
    for (const kp::SystemResult& s : r.systems) {
      points += s.prediction.points.size();
      for (const auto& p : s.prediction.points) sum += p.t_total_s;
    }
    // CPU seconds of all threads: the figure a loaded machine leaves least changed.
    std::printf("10^4 designs, tile-plan cache %-3s: %zu designs, %zu points, %.2f s wall [goal <= 3 s], %.2f s CPU  "
                "(checksum of T_total %.17g)\n",
                cache ? "on" : "off", kp::design_count(spec), points, total_s, cpu_s, sum);
  }
  std::printf("load average after: %s (2 cores shared with other sessions: wall times are upper bounds)\n",
              load_average().c_str());
}

}  // namespace

void bench_systemc_decoder(const std::string& src) {
  const kp::Case c = kp::load_case(src + "/hw_configs/h100_cluster.yaml", src + "/workloads/gpt3_1p3b.yaml");
  for (const char* fidelity : {"analytic", "systemc"}) {
    const auto model = kp::make_update_model(c, fidelity);
    const auto t0 = std::chrono::steady_clock::now();
    const kp::UpdateResult r = model->simulate(8, 1);
    std::printf("gpt3_1p3b, 1 chip, M = 8: %-8s T_update %.4g s, %zu ops, %.3f s wall%s\n", fidelity,
                r.breakdown.t_update_s, c.step.ops.size(), seconds_since(t0),
                std::string(fidelity) == "systemc" ? " [goal <= 0.5 s]" : "");
  }
}

int main(int argc, char** argv) {
  const std::string src = argc > 1 ? argv[1] : KP_SOURCE_DIR;
  const std::string mode = argc > 2 ? argv[2] : "";
  std::printf("load average: %s\n", load_average().c_str());
  const std::string head = "name: bench\nworkload: " + src + "/workloads/resnet50_imagenet.yaml\nhardware: [" + src +
                           "/hw_configs/tpu_v3_pod.yaml]\n";
  if (mode == "--systemc") {
    bench_systemc_decoder(src);
    return 0;
  }
  if (mode == "--designs") {  // the 10^4-design study alone, tile-plan cache off then on
    bench_designs(head);
    return 0;
  }
  bench_points(src);
  if (mode == "--quick") return 0;
  // 13 array sizes x 2 SRAM sizes x 5 link bandwidths = 130 designs x 77 (M, P) points.
  bench_study("study of ~10,000 (M, P) points (ResNet-50, TPU-v3-like pod)",
              head +
                  "sweep:\n"
                  "  chip.compute.array.rows: {from: 32, to: 416, step: 32}\n"
                  "  chip.memory.sram.capacity: [16 MiB, 32 MiB]\n"
                  "  interconnect.link.bandwidth: {from: 25 GB/s, to: 400 GB/s, factor: 2}\n"
                  "batches: {from: 1024, to: 65536}\nlearners: {from: 1, to: 1024}\n");
  // 10 x 10 x 10 x 10 = 10,000 designs x 9 (M, P) points.
  bench_study("study of 10,000 design points (ResNet-50, TPU-v3-like pod)",
              head +
                  "sweep:\n"
                  "  chip.compute.array.rows: {from: 32, to: 320, step: 32}\n"
                  "  chip.memory.sram.capacity: {from: 4 MiB, to: 40 MiB, step: 4}\n"
                  "  interconnect.link.bandwidth: {from: 25 GB/s, to: 250 GB/s, step: 25}\n"
                  "  chip.clock: {from: 500 MHz, to: 1400 MHz, step: 100}\n"
                  "batches: [4096, 16384, 65536]\nlearners: [64, 256, 1024]\n");
  return 0;
}
