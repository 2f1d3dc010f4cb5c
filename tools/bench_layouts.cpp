// Benchmark of parallel layouts (prints figures; asserts nothing), issue 36's speed goals:
// 1. one GPT-3 175B training step on dp x tp x pp = 16 x 8 x 8 = 1024 H100-like chips in SystemC
//    (goal <= 2 s wall), beside its analytic twin;
// 2. `layout: search` over a grid of (M, P) points, analytic: layouts evaluated and wall time
//    (goal: >= 10^4 layouts x points in <= 10 s).
// Usage: bench_layouts [SOURCE_DIR]
#include <chrono>
#include <cstdio>
#include <string>

#include "sim/layout_search.h"
#include "tools/bench_timing.h"
#include "tools/study/case_loader.h"

using kp::load_average;
using kp::seconds_since;

int main(int argc, char** argv) {
  const std::string src = argc > 1 ? argv[1] : KP_SOURCE_DIR;
  std::printf("load average: %s (2 cores, shared: wall times are upper bounds)\n", load_average().c_str());
  kp::Case c = kp::load_case(src + "/hw_configs/h100_cluster.yaml", src + "/workloads/gpt3_175b.yaml");
  kp::LayoutChoice fixed = kp::parse_layout_text("dp=16,tp=8,pp=8,micro_batch=1", "bench");
  for (const char* fidelity : {"analytic", "systemc"}) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto model = kp::make_update_model(c, fidelity, &fixed);
    const kp::UpdateResult r = model->simulate(1536, 1024);
    std::printf("gpt3_175b, %s on 1024 chips, M = 1536: %-8s T_update %.4g s (bubble %.3g s, tp %.3g s), "
                "%.3f s wall%s\n",
                fixed.fixed.text().c_str(), fidelity, r.breakdown.t_update_s, r.breakdown.pipeline_bubble_s,
                r.breakdown.tp_comm_s, seconds_since(t0), std::string(fidelity) == "systemc" ? " [goal <= 2 s]" : "");
  }
  c.hw.interconnect.max_learners = 4096;
  kp::LayoutChoice search;
  search.search = true;
  const auto t0 = std::chrono::steady_clock::now();
  const auto model = kp::make_update_model(c, "analytic", &search);
  const auto* lm = dynamic_cast<const kp::LayoutModel*>(model.get());
  int64_t points = 0;
  double sink = 0;
  for (int64_t p = 64; p <= 4096; p *= 2)
    for (int64_t m = 256; m <= 16384; m *= 2) {
      if (m < p / 64) continue;
      sink += model->simulate(m, p).breakdown.t_update_s;
      ++points;
    }
  const double wall = seconds_since(t0);
  std::printf("layout search, gpt3_175b, P 64..4096 x M 256..16384: %lld points, %lld layouts evaluated, "
              "%.2f s wall, %.3g layouts/s [goal: >= 10^4 layouts x points in <= 10 s]%s\n",
              static_cast<long long>(points), static_cast<long long>(lm->evaluated()), wall,
              static_cast<double>(lm->evaluated()) / wall, sink > 0 ? "" : " (no result)");
  std::printf("load average after: %s\n", load_average().c_str());
  return 0;
}
