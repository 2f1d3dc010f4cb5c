// Speed of the SystemC systolic model (issue 3): SCALE-Sim's ResNet-18 and AlexNet topologies on a
// 128x128 array, all three dataflows, unlimited and 10 words/cycle DRAM, in one elaboration.
// Prints wall time, simulated cycles per wall second and peak memory. A benchmark, not a test.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "sim/scalesim/topology.h"
#include "sim/systemc/systolic_sc.h"

extern "C" int sc_main(int, char**) {
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
