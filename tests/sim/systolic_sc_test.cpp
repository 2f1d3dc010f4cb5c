// SystemC systolic array vs SCALE-Sim v2 and vs the analytic twin. libsystemc provides main() and
// calls sc_main, so this binary's entry point is sc_main; all chips are elaborated once (SystemC
// allows one elaboration per process) and every test reads its slice of that one run.
#include "sim/systemc/systolic_sc.h"
#include "sim/systemc/sc_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "sim/scalesim/scalesim_run.h"

namespace kp {
namespace {

const std::string kRef = std::string(KP_SOURCE_DIR) + "/tests/data/scalesim/reference";
const std::string kTopo = std::string(KP_SOURCE_DIR) + "/tests/data/scalesim/topologies";
const char* const kRefConfigs[] = {"sa32x32_os", "sa32x32_ws", "sa32x32_is", "sa128x128_os",
                                   "sa128x128_ws", "sa128x128_is", "sa32x32_os_userbw10",
                                   "sa32x32_ws_userbw10"};
constexpr size_t kNumRef = sizeof(kRefConfigs) / sizeof(kRefConfigs[0]);
const char* const kNets[] = {"alexnet.csv", "Resnet18.csv"};
const Dataflow kFlows[] = {Dataflow::OutputStationary, Dataflow::WeightStationary, Dataflow::InputStationary};

ScChipConfig chip_of(const ScaleSimConfig& c) {
  ScChipConfig chip;
  chip.rows = c.array_height, chip.cols = c.array_width, chip.dataflow = c.dataflow;
  chip.ifmap_sram_words = c.ifmap_sram_kb * 1024;
  chip.filter_sram_words = c.filter_sram_kb * 1024;
  chip.ofmap_sram_words = c.ofmap_sram_kb * 1024;
  chip.dram_words_per_cycle = c.interface_bandwidth == InterfaceBandwidth::User ? c.bandwidth_words_per_cycle : 0;
  return chip;
}

std::vector<GemmShape> gemms(const std::vector<ScaleSimLayer>& layers) {
  std::vector<GemmShape> g;
  for (const ScaleSimLayer& l : layers) g.push_back(l.gemm);
  return g;
}

struct World {
  std::vector<ScaleSimConfig> ref_configs;
  std::vector<std::vector<ScaleSimLayer>> net_layers;
  std::vector<ScJob> jobs;  // kNumRef reference jobs, then nets x flows on 128x128
  std::vector<std::vector<ScLayerResult>> results;
};

const World& world() {
  static const World w = [] {
    World w;
    const auto ref_layers = read_scalesim_topology(kRef + "/topologies/fmnist_cnn_conv.csv", TopologyFormat::Conv);
    for (const char* cfg : kRefConfigs) {
      w.ref_configs.push_back(read_scalesim_config(kRef + "/configs/" + cfg + ".cfg"));
      w.jobs.push_back({chip_of(w.ref_configs.back()), gemms(ref_layers)});
    }
    for (const char* net : kNets) {
      w.net_layers.push_back(read_scalesim_topology(kTopo + "/" + net, TopologyFormat::Conv));
      for (Dataflow d : kFlows) {
        ScChipConfig chip;
        chip.rows = chip.cols = 128, chip.dataflow = d;
        w.jobs.push_back({chip, gemms(w.net_layers.back())});
      }
    }
    // The same networks behind a 10 words/cycle interface (512 KiB buffers), for the twin check.
    for (size_t n = 0; n < 2; ++n) {
      for (Dataflow d : kFlows) {
        ScChipConfig chip;
        chip.rows = chip.cols = 128, chip.dataflow = d, chip.dram_words_per_cycle = 10;
        chip.ifmap_sram_words = chip.filter_sram_words = chip.ofmap_sram_words = 512 * 1024;
        w.jobs.push_back({chip, gemms(w.net_layers[n])});
      }
    }
    w.results = run_systolic_sc(w.jobs);
    return w;
  }();
  return w;
}

// Must run before world() elaborates in this process (it is first in the file; ctest runs each
// test in its own process anyway): forked workers give the same numbers as SCALE-Sim / the twin.
TEST(SystolicScPool, ForkedWorkersMatchTheClosedForm) {
  const auto layers = read_scalesim_topology(kTopo + "/Resnet18.csv", TopologyFormat::Conv);
  std::vector<ScJob> jobs;
  for (int64_t size : {32, 64, 128}) {
    for (Dataflow d : kFlows) {
      ScChipConfig chip;
      chip.rows = chip.cols = size, chip.dataflow = d;
      jobs.push_back({chip, gemms(layers)});
    }
  }
  for (int workers : {1, 4}) {
    const auto res = run_systolic_sc_pool(jobs, workers);
    ASSERT_EQ(res.size(), jobs.size());
    for (size_t j = 0; j < jobs.size(); ++j) {
      ASSERT_EQ(res[j].size(), layers.size());
      for (size_t l = 0; l < layers.size(); ++l) {
        const FoldTiming ft = fold_timing(jobs[j].chip.dataflow, jobs[j].chip.rows, jobs[j].chip.cols, layers[l].gemm);
        EXPECT_EQ(res[j][l].total_cycles, ft.total_cycles) << "job " << j << " layer " << l;
        EXPECT_EQ(res[j][l].folds, ft.folds);
      }
    }
  }
}

TEST(SystolicSc, UnlimitedBandwidthEqualsScaleSimReference) {
  const World& w = world();
  int checked = 0;
  for (size_t j = 0; j < kNumRef; ++j) {
    if (w.ref_configs[j].interface_bandwidth != InterfaceBandwidth::Calc) continue;
    const auto ref = read_compute_report(kRef + "/results/fmnist_cnn_conv/" + kRefConfigs[j] + "/COMPUTE_REPORT.csv");
    ASSERT_EQ(ref.size(), w.results[j].size());
    for (size_t l = 0; l < ref.size(); ++l) {
      EXPECT_EQ(w.results[j][l].total_cycles, ref[l].total_cycles) << kRefConfigs[j] << " layer " << l;
      EXPECT_EQ(w.results[j][l].stall_cycles, 0);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 24);
}

TEST(SystolicSc, UnlimitedBandwidthEqualsFoldTimingOnAlexNetAndResNet18) {
  const World& w = world();
  size_t j = kNumRef;
  for (size_t n = 0; n < 2; ++n) {
    for (Dataflow d : kFlows) {
      const auto& res = w.results[j++];
      ASSERT_EQ(res.size(), w.net_layers[n].size());
      for (size_t l = 0; l < res.size(); ++l) {
        EXPECT_EQ(res[l].total_cycles, fold_timing(d, 128, 128, w.net_layers[n][l].gemm).total_cycles)
            << kNets[n] << " " << dataflow_name(d) << " layer " << l;
      }
    }
  }
}

TEST(SystolicSc, UserBandwidthWithinTenPercentOfScaleSimAndTwoOfTheTwin) {
  const World& w = world();
  const auto layers = read_scalesim_topology(kRef + "/topologies/fmnist_cnn_conv.csv", TopologyFormat::Conv);
  int checked = 0;
  for (size_t j = 0; j < kNumRef; ++j) {
    if (w.ref_configs[j].interface_bandwidth != InterfaceBandwidth::User) continue;
    const auto ref = read_compute_report(kRef + "/results/fmnist_cnn_conv/" + kRefConfigs[j] + "/COMPUTE_REPORT.csv");
    const auto twin = simulate_scalesim(w.ref_configs[j], layers);
    for (size_t l = 0; l < ref.size(); ++l) {
      const double sc = static_cast<double>(w.results[j][l].total_cycles);
      const double err_ref = (sc - ref[l].total_cycles) / ref[l].total_cycles;
      const double err_twin = (sc - twin[l].report.total_cycles) / twin[l].report.total_cycles;
      std::printf("  %-20s layer %zu: systemc %6.0f  scalesim %6lld (%+.2f%%)  twin %6lld (%+.2f%%)\n",
                  kRefConfigs[j], l, sc, static_cast<long long>(ref[l].total_cycles), 100 * err_ref,
                  static_cast<long long>(twin[l].report.total_cycles), 100 * err_twin);
      EXPECT_LE(std::fabs(err_ref), 0.10) << kRefConfigs[j] << " layer " << l;
      EXPECT_LE(std::fabs(err_twin), 0.02) << kRefConfigs[j] << " layer " << l;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 8);
}

// The analytic twin (estimate_dram_stalls) stays within 2% of the SystemC cycles on every layer of
// AlexNet and ResNet-18 at 10 words/cycle.
TEST(SystolicSc, AnalyticTwinWithinTwoPercentOnBundledNetworks) {
  const World& w = world();
  size_t j = kNumRef + 6;
  double worst = 0;
  for (size_t n = 0; n < 2; ++n) {
    for (Dataflow d : kFlows) {
      const ScChipConfig& chip = w.jobs[j].chip;
      const DramInterfaceSpec dram{chip.ifmap_sram_words, chip.filter_sram_words, chip.ofmap_sram_words, 10};
      const auto& res = w.results[j++];
      for (size_t l = 0; l < res.size(); ++l) {
        const GemmShape& g = w.net_layers[n][l].gemm;
        const int64_t twin = fold_timing(d, 128, 128, g).total_cycles + estimate_dram_stalls(d, 128, 128, g, dram).stall_cycles;
        const double err = std::fabs(static_cast<double>(res[l].total_cycles - twin)) / static_cast<double>(res[l].total_cycles);
        worst = std::max(worst, err);
        EXPECT_LE(err, 0.02) << kNets[n] << " " << dataflow_name(d) << " layer " << l << ": systemc "
                             << res[l].total_cycles << " twin " << twin;
      }
    }
  }
  std::printf("  worst twin-vs-SystemC error on AlexNet/ResNet-18 at 10 words/cycle: %.3f%%\n", 100 * worst);
}

TEST(SystolicSc, SecondElaborationIsRefused) {
  world();
  EXPECT_THROW(run_systolic_sc({}), std::logic_error);
}

}  // namespace
}  // namespace kp

// SystemC declares sc_main extern "C" (sysc/kernel/sc_externs.h).
extern "C" int sc_main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
