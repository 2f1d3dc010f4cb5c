// Speed of the SystemC systolic model (issue 3): SCALE-Sim's ResNet-18 and AlexNet topologies on a
// 128x128 array, all three dataflows, unlimited and 10 words/cycle DRAM, in one elaboration.
// Prints wall time, simulated cycles per wall second and peak memory. A benchmark, not a test.
// First (before this process elaborates, which would poison forked workers): one full training
// update of ResNet-50 (batch 128) on one TPU-v3-like chip through the systemc fidelity.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "sim/scalesim/topology.h"
#include "core/config_doc.h"
#include "core/network_spec.h"
#include "core/workload_spec.h"
#include "sim/systemc/systemc_update.h"
#include "sim/systemc/systolic_sc.h"

namespace {

void bench_resnet50_update() {
  using namespace kp;
  const std::string src(KP_SOURCE_DIR);
  const HardwareSpec hw = parse_hardware(ConfigDoc::load(src + "/hw_configs/tpu_v3_pod.yaml"));
  const WorkloadSpec w = parse_workload(ConfigDoc::load(src + "/workloads/resnet50_imagenet.yaml"));
  const SystemcUpdate sc(hw, lower_training_step(resolve_network(w.network)), hw.array.bytes_per_element);
  const int64_t batch = 128;
  std::vector<LayerRecord> layers;
  const auto t0 = std::chrono::steady_clock::now();
  const UpdateResult r = sc.simulate(batch, 1, &layers);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double cycles = 0;
  for (const LayerRecord& l : layers) cycles += static_cast<double>(l.cycles);
  rusage ru{};
  getrusage(RUSAGE_CHILDREN, &ru);
  std::printf("ResNet-50 update, batch %lld, one TPU-v3-like chip (systemc fidelity): T_update %.4f s simulated, "
              "%.4f s wall (incl. fork), %.3g simulated cycles/s, worker peak RSS %ld KiB\n",
              static_cast<long long>(batch), r.breakdown.t_update_s, wall, cycles / wall, ru.ru_maxrss);
}

}  // namespace

extern "C" int sc_main(int, char**) {
  bench_resnet50_update();
  using namespace kp;
  const std::string dir = std::string(KP_SHARED_DIR) + "/scalesim_topologies/";
  std::vector<ScJob> jobs;
  std::vector<std::string> names;
  for (const char* net : {"Resnet18.csv", "alexnet.csv"}) {
    std::vector<GemmShape> g;
    for (const ScaleSimLayer& l : read_scalesim_topology(dir + net, TopologyFormat::Conv)) g.push_back(l.gemm);
    for (Dataflow d : {Dataflow::OutputStationary, Dataflow::WeightStationary, Dataflow::InputStationary}) {
      for (int64_t bw : {0, 10}) {
        ScChipConfig c;
        c.rows = c.cols = 128, c.dataflow = d, c.dram_words_per_cycle = bw;
        c.ifmap_sram_words = c.filter_sram_words = c.ofmap_sram_words = 512 * 1024;
        jobs.push_back({c, g});
        names.push_back(std::string(net) + " " + dataflow_name(d) + (bw ? " bw10" : " unlimited"));
      }
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  const auto results = run_systolic_sc(jobs);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  long long cycles = 0;
  for (size_t j = 0; j < results.size(); ++j) {
    long long c = 0;
    for (const ScLayerResult& r : results[j]) c += r.total_cycles;
    cycles += c;
    std::printf("%-28s %12lld cycles\n", names[j].c_str(), c);
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::printf("%zu chip runs in %.4f s wall (%.4f s per run), %.3g simulated cycles/s, peak RSS %ld KiB\n",
              jobs.size(), wall, wall / static_cast<double>(jobs.size()), static_cast<double>(cycles) / wall,
              ru.ru_maxrss);
  return 0;
}
