// Speed of the SystemC interconnect (issue 4). Prints, for ResNet-50 (25,557,032 FP32 gradients in
// 25 MiB buckets): the all-reduce of every bucket on a 32 x 32 2D torus (1024 learners) and on a
// 4096-learner ring, symmetric (exact, collective_dag.h) and, where it is affordable, with every
// learner simulated; then one whole systemc-fidelity update on the 1024-chip torus. Wall times
// include the fork of the worker; the machine is shared, so the load average is printed alongside
// and the figures are upper bounds of the cost on an idle machine. A benchmark, not a test.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "tests/legacy_precision.h"
#include "core/config_doc.h"
#include "core/network_spec.h"
#include "core/workload_spec.h"
#include "sim/analytic/collective_analytic.h"
#include "sim/systemc/net/net_runner.h"
#include "sim/systemc/systemc_update.h"

namespace {

using namespace kp;
using Clock = std::chrono::steady_clock;

std::string load_average() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  f >> a >> b >> c;
  return a + " " + b + " " + c;
}

std::vector<double> resnet50_buckets() {
  const double grad = 25557032.0 * 4, bucket = 25.0 * 1048576;
  std::vector<double> out;
  for (double left = grad; left > 0; left -= bucket) out.push_back(left < bucket ? left : bucket);
  return out;
}

void bench_collective(const char* what, const InterconnectSpec& ic, int64_t p, bool symmetric) {
  std::vector<NetJob> jobs;
  for (double b : resnet50_buckets()) jobs.push_back(NetJob{ic, p, b, symmetric});
  const auto t0 = Clock::now();
  const std::vector<NetRunStats> r = run_net_sc_forked(jobs);
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  double sim = 0, analytic = 0;
  int64_t events = 0;
  for (size_t i = 0; i < r.size(); ++i) sim += r[i].seconds, events += r[i].events, analytic += allreduce_s(ic, p, jobs[i].bytes);
  std::printf("%-44s P=%5lld %-9s all-reduce %.6f s simulated (closed form %.6f s), %9lld events, %.3f s wall\n",
              what, static_cast<long long>(p), symmetric ? "symmetric" : "full", sim, analytic,
              static_cast<long long>(events), wall);
}

}  // namespace

int main() {
  const std::string src(KP_SOURCE_DIR);
  const HardwareSpec tpu = parse_hardware(ConfigDoc::load(src + "/hw_configs/tpu_v3_pod.yaml"));
  std::printf("load average before: %s (2 cores, shared)\n", load_average().c_str());
  bench_collective("ResNet-50 buckets, torus2d 32x32 (tpu_v3_pod)", tpu.interconnect, 1024, true);
  bench_collective("ResNet-50 buckets, torus2d 32x32 (tpu_v3_pod)", tpu.interconnect, 1024, false);
  InterconnectSpec ring = tpu.interconnect;
  ring.topology = Topology::Ring, ring.collective = Collective::Ring, ring.max_learners = 4096;
  bench_collective("ResNet-50 buckets, ring (tpu_v3_pod links)", ring, 4096, true);
  bench_collective("ResNet-50 buckets, ring (tpu_v3_pod links)", ring, 256, false);

  const WorkloadSpec w = parse_workload(ConfigDoc::load(src + "/workloads/resnet50_imagenet.yaml"));
  const LoweredStep step = lower_training_step(resolve_network(w.network));
  const SystemcUpdate sc(tpu, step, legacy_precision(tpu));
  const auto t0 = Clock::now();
  const UpdateResult r = sc.simulate(1024 * 32, 1024);
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  std::printf("ResNet-50 update, M = 32768 on 1024 chips of the 32x32 torus (systemc fidelity): T_update %.4f s, "
              "all-reduce %.4f s (exposed %.4f s) simulated; %.3f s wall incl. chip and network workers\n",
              r.breakdown.t_update_s, r.breakdown.allreduce_s, r.breakdown.allreduce_exposed_s, wall);
  std::printf("load average after: %s\n", load_average().c_str());
  return 0;
}
