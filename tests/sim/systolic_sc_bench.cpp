// Speed of the SystemC models (issue 3). A benchmark, not a test: prints wall times, simulated
// cycles per wall second, peak memory and the load average (timings under load are lower bounds).
//   1. SCALE-Sim's ResNet-18 topology on a 128x128 array, per dataflow, on the SCALE-Sim-exact
//      systolic model (systolic_sc.h), unlimited and 10 words/cycle DRAM.
//   2. The same topology, per dataflow, as one chip run on the tiled chip executor (chip_executor.h)
//      with a 128x128 array, 1.5 MiB SRAM, 10 B/cycle DRAM.
//   3. One training update (forward + backward + optimizer) of ResNet-50, batch 128, on one
//      TPU-v3-like chip through the systemc fidelity.
// Every run is in forked workers (one elaboration each), timed from the parent, fork included.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tests/legacy_precision.h"
#include "core/config_doc.h"
#include "core/network_spec.h"
#include "core/workload_spec.h"
#include "sim/scalesim/topology.h"
#include "sim/systemc/chip_executor.h"
#include "sim/systemc/sc_pool.h"
#include "sim/systemc/systemc_update.h"

namespace {

using namespace kp;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

long children_peak_kib() {
  rusage ru{};
  getrusage(RUSAGE_CHILDREN, &ru);
  return ru.ru_maxrss;
}

void bench_scalesim_model(const std::vector<GemmShape>& resnet18) {
  for (Dataflow d : {Dataflow::OutputStationary, Dataflow::WeightStationary, Dataflow::InputStationary}) {
    for (int64_t bw : {0, 10}) {
      ScChipConfig c;
      c.rows = c.cols = 128, c.dataflow = d, c.dram_words_per_cycle = bw;
      c.ifmap_sram_words = c.filter_sram_words = c.ofmap_sram_words = 512 * 1024;
      const auto t0 = Clock::now();
      const auto res = run_systolic_sc_pool({ScJob{c, resnet18}}, 1);
      const double wall = since(t0);
      double cycles = 0;
      for (const ScLayerResult& r : res[0]) cycles += static_cast<double>(r.total_cycles + 1);
      std::printf("  SCALE-Sim model  ResNet-18 128x128 %s %-9s %12.0f cycles  %.4f s wall  %.3g cycles/s\n",
                  dataflow_name(d), bw ? "bw10" : "unlimited", cycles, wall, cycles / wall);
    }
  }
}

void bench_chip_executor(const std::vector<GemmShape>& resnet18) {
  for (Dataflow d : {Dataflow::OutputStationary, Dataflow::WeightStationary, Dataflow::InputStationary}) {
    ScChipRun run;
    HardwareSpec& hw = run.hw;
    hw.clock_hz = 1e9;
    hw.array = {128, 128, 1, d};
    hw.vector = {128, 1};
    hw.sram = {1.5 * 1048576, 1e12, 16};
    hw.dram = {"ddr4", 1e12, 10e9, 100e-9, 2};
    for (const GemmShape& g : resnet18) {
      ScOp op;
      op.g = {g.m, g.n, g.k}, op.bytes_per_element = 1;
      run.ops.push_back(op);
    }
    const auto t0 = Clock::now();
    const auto res = run_chip_sc_pool({run}, 1);
    const double wall = since(t0);
    double cycles = 0, tiles = 0;
    for (const ScOpResult& r : res[0]) cycles += r.seconds * hw.clock_hz, tiles += r.tiles;
    std::printf("  chip executor    ResNet-18 128x128 %s 1.5 MiB SRAM %12.0f cycles %7.0f tiles  %.4f s wall  %.3g cycles/s\n",
                dataflow_name(d), cycles, tiles, wall, cycles / wall);
  }
}

void bench_resnet50_update() {
  const std::string src(KP_SOURCE_DIR);
  const HardwareSpec hw = parse_hardware(ConfigDoc::load(src + "/hw_configs/tpu_v3_pod.yaml"));
  const WorkloadSpec w = parse_workload(ConfigDoc::load(src + "/workloads/resnet50_imagenet.yaml"));
  const SystemcUpdate sc(hw, lower_training_step(resolve_network(w.network)), legacy_precision(hw));
  const int64_t batch = 128;
  std::vector<LayerRecord> layers;
  const auto t0 = Clock::now();
  const UpdateResult r = sc.simulate(batch, 1, &layers);
  const double wall = since(t0);
  double cycles = 0, tiles = 0;
  for (const LayerRecord& l : layers) cycles += static_cast<double>(l.cycles), tiles += static_cast<double>(l.tiles);
  std::printf("  ResNet-50 update, batch %lld, one TPU-v3-like chip (systemc): T_update %.4f s simulated, %zu ops, "
              "%.0f tiles, %.4f s wall, %.3g simulated cycles/s\n",
              static_cast<long long>(batch), r.breakdown.t_update_s, layers.size(), tiles, wall, cycles / wall);
}

}  // namespace

extern "C" int sc_main(int, char**) {
  double load[3] = {0, 0, 0};
  if (getloadavg(load, 3) < 0) load[0] = -1;
  std::printf("load average %.2f %.2f %.2f (2 cores, shared: wall times are upper bounds)\n", load[0], load[1], load[2]);
  std::vector<GemmShape> resnet18;
  const std::string topo = std::string(KP_SOURCE_DIR) + "/tests/data/scalesim/topologies/Resnet18.csv";
  for (const ScaleSimLayer& l : read_scalesim_topology(topo, TopologyFormat::Conv))
    resnet18.push_back(l.gemm);
  bench_scalesim_model(resnet18);
  bench_chip_executor(resnet18);
  bench_resnet50_update();
  rusage self{};
  getrusage(RUSAGE_SELF, &self);
  std::printf("peak RSS: workers %ld KiB, parent %ld KiB\n", children_peak_kib(), self.ru_maxrss);
  return 0;
}
