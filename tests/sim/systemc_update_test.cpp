// The analytic twin held to the SystemC chip on every shipped hardware config x workload: both cut
// every op into the same tiles (sim/tile_plan.h); SystemC times the tile transactions with its DRAM
// channels, SRAM and DMA modules and counts the bytes at the targets. Checked: every op's unit
// cycles and DRAM/SRAM bytes equal, every op's time equal to the 1 fs time resolution, the update
// within 2% (it is equal), results independent of the TLM quantum, the trace file. SystemcUpdate
// runs the model in forked workers, so these tests never elaborate in this process.
#include "tests/legacy_precision.h"
#include "sim/systemc/systemc_update.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "core/config_doc.h"
#include "core/hw_spec.h"
#include "core/network_spec.h"
#include "core/workload_spec.h"
#include "sim/analytic/update_analytic.h"
#include "sim/systemc/chip_executor.h"

namespace kp {
namespace {

const char* const kHw[] = {"edge_npu", "h100_cluster", "t4_cluster", "tpu_v3_pod"};
// Shipped workloads, and test ones (tests/data/workloads) small enough for SystemC with attention,
// recurrences and graph joins.
const char* const kWorkloads[] = {"fmnist_mlp",    "fmnist_simple_cnn", "resnet18_cifar10", "resnet50_imagenet",
                                  "ncf_movielens", "tiny_gpt",          "tiny_speech"};

std::string workload_path(const std::string& name) {
  const std::string shipped = std::string(KP_SOURCE_DIR) + "/workloads/" + name + ".yaml";
  if (std::ifstream(shipped)) return shipped;
  return std::string(KP_SOURCE_DIR) + "/tests/data/workloads/" + name + ".yaml";
}
constexpr int64_t kBatch = 32;  // global batch; P = 4 gives 8 per learner

struct Pair {
  const char* hw;
  const char* workload;
};

class TwinVsSystemc : public testing::TestWithParam<Pair> {};

TEST_P(TwinVsSystemc, SameTilesSameBytesUpdateWithinTwoPercent) {
  const std::string src(KP_SOURCE_DIR);
  const HardwareSpec hw = parse_hardware(ConfigDoc::load(src + "/hw_configs/" + GetParam().hw + ".yaml"));
  const WorkloadSpec w = parse_workload(ConfigDoc::load(workload_path(GetParam().workload)));
  const LoweredStep step = lower_training_step(resolve_network(w.network), w.optimizer.kind);
  const Precision bpe = legacy_precision(hw);
  const AnalyticUpdate twin(hw, step, bpe);
  const SystemcUpdate sc(hw, step, bpe);
  const ChipAnalytic chip(hw, bpe);
  for (int64_t p : {1, 4}) {
    if (p > hw.interconnect.max_learners) continue;
    const UpdateResult ra = twin.simulate(kBatch, p), rs = sc.simulate(kBatch, p);
    const double err = (rs.breakdown.t_update_s - ra.breakdown.t_update_s) / ra.breakdown.t_update_s;
    const int64_t m = rs.per_learner_batch;
    const std::vector<OpCost> ops = sc.op_costs(m);
    int n_stalled = 0;
    double stall_s = 0;
    for (size_t i = 0; i < step.ops.size(); ++i) {
      const OpCost t = chip.cost(step.ops[i], m);
      const OpCost& s = ops[i];
      EXPECT_EQ(s.cycles, t.cycles) << "op " << i;
      EXPECT_EQ(s.tiles, t.tiles) << "op " << i;
      EXPECT_DOUBLE_EQ(s.dram_read_bytes, t.dram_read_bytes) << "op " << i;
      EXPECT_DOUBLE_EQ(s.dram_write_bytes, t.dram_write_bytes) << "op " << i;
      EXPECT_DOUBLE_EQ(s.sram_bytes, t.sram_bytes) << "op " << i;
      // 1 fs resolution: at most a few fs of rounding per tile.
      EXPECT_NEAR(s.seconds, t.seconds, 1e-14 * static_cast<double>(4 + 4 * t.tiles)) << "op " << i;
      n_stalled += s.stall_s > 1e-12 ? 1 : 0;
      stall_s += s.stall_s;
    }
    std::printf("  %-13s %-18s P=%lld  twin %.9e s  systemc %.9e s  %+.2e%%  ops %zu (with DMA stalls %d, %.3g s)\n",
                GetParam().hw, GetParam().workload, static_cast<long long>(p), ra.breakdown.t_update_s,
                rs.breakdown.t_update_s, 100 * err, step.ops.size(), n_stalled, stall_s);
    EXPECT_LE(std::fabs(err), 0.02) << GetParam().hw << " x " << GetParam().workload << " P=" << p;
    EXPECT_EQ(rs.per_learner_batch, ra.per_learner_batch);
  }
}

std::vector<Pair> all_pairs() {
  std::vector<Pair> v;
  for (const char* h : kHw)
    for (const char* w : kWorkloads) v.push_back({h, w});
  return v;
}

INSTANTIATE_TEST_SUITE_P(Shipped, TwinVsSystemc, testing::ValuesIn(all_pairs()),
                         [](const testing::TestParamInfo<Pair>& i) {
                           return std::string(i.param.hw) + "_x_" + i.param.workload;
                         });

HardwareSpec load_hw(const char* name) {
  return parse_hardware(ConfigDoc::load(std::string(KP_SOURCE_DIR) + "/hw_configs/" + name + ".yaml"));
}

LoweredStep load_step(const char* name) {
  const WorkloadSpec w = parse_workload(ConfigDoc::load(std::string(KP_SOURCE_DIR) + "/workloads/" + name + ".yaml"));
  return lower_training_step(resolve_network(w.network));
}

TEST(SystemcUpdate, ReportsItsFidelityAndRunsRepeatedly) {
  const HardwareSpec hw = load_hw("tpu_v3_pod");
  const SystemcUpdate sc(hw, load_step("fmnist_mlp"), legacy_precision(hw));
  EXPECT_STREQ(sc.fidelity(), "systemc");
  const double t0 = sc.simulate(64, 1).breakdown.t_update_s;
  EXPECT_EQ(sc.simulate(64, 1).breakdown.t_update_s, t0);  // a second run forks a fresh worker
}

// Temporal decoupling must not change the answer: a 1 ps quantum (a sync after nearly every tile),
// 1 us and 1 s (one sync per op or less) give bit-identical per-op results.
TEST(SystemcUpdate, ResultsDoNotDependOnTheQuantum) {
  const HardwareSpec hw = load_hw("edge_npu");
  SystemcUpdate sc(hw, load_step("fmnist_simple_cnn"), legacy_precision(hw));
  sc.set_quantum_s(1e-12);
  const std::vector<OpCost> fine = sc.op_costs(16);
  for (double q : {1e-6, 1.0}) {
    sc.set_quantum_s(q);
    const std::vector<OpCost> coarse = sc.op_costs(16);
    ASSERT_EQ(coarse.size(), fine.size());
    for (size_t i = 0; i < fine.size(); ++i) {
      EXPECT_EQ(coarse[i].seconds, fine[i].seconds) << "quantum " << q << " op " << i;
      EXPECT_EQ(coarse[i].stall_s, fine[i].stall_s) << "quantum " << q << " op " << i;
      EXPECT_EQ(coarse[i].dram_bytes, fine[i].dram_bytes) << "quantum " << q << " op " << i;
    }
  }
}

// The hand-computed schedule of tests/sim/tile_plan_test.cpp (GemmSpillsIntoMTiles...): 576 ns, with
// the bytes counted by the DRAM target; and the streamed elementwise case, 2048 ns.
TEST(ChipExecutor, HandComputedTileSchedules) {
  ScChipRun run;
  HardwareSpec& hw = run.hw;
  hw.clock_hz = 1e9;
  hw.array = {4, 4, 1, Dataflow::WeightStationary};
  hw.vector = {4, 1};
  hw.sram = {200, 1e12, 4};
  hw.dram = {"ddr4", 1e12, 1e9, 0, 1};
  ScOp g;
  g.g = {8, 8, 8}, g.bytes_per_element = 1;
  ScOp e;
  e.gemm = false, e.elements = 1000, e.ops_per_element = 2, e.tensors_moved = 2, e.bytes_per_element = 1;
  run.ops = {g, e};
  hw.sram.capacity_bytes = 200;
  const std::vector<ScOpResult> r = run_chip_sc_forked(run);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_NEAR(r[0].seconds, 576e-9, 1e-14);
  EXPECT_NEAR(r[0].compute_s, 192e-9, 1e-14);
  EXPECT_EQ(r[0].dram_read_bytes, 128);
  EXPECT_EQ(r[0].dram_write_bytes, 64);
  EXPECT_EQ(r[0].tiles, 4);
  // 1000 elements x 2 tensors do not fit in half of 200 B: chunks of 200 / 4 = 50 elements, 20 chunks
  // of 50 B in (1 burst, 64 ns) and out around 25-cycle computes: 64 + 64 + 18 x 128 + 64 + 64.
  EXPECT_EQ(r[1].tiles, 20);
  EXPECT_NEAR(r[1].seconds, (64 + 64 + 18 * 128 + 64 + 64) * 1e-9, 1e-14);
  EXPECT_EQ(r[1].dram_read_bytes, 1000);
}

// Issue 35: the ops of a micro-step beside a collective that holds half the units and streams
// 64 MB through the DRAM channels over 2 ms. Temporal decoupling must not change the answer, and
// the collective's bytes are not the ops': each op's DRAM bytes equal those of the ops alone.
TEST(ChipExecutor, CollectiveBesideTheOpsIsQuantumFreeAndKeepsTheOpsBytes) {
  const HardwareSpec hw = load_hw("t4_cluster");
  SystemcUpdate sc(hw, load_step("resnet18_cifar10"), legacy_precision(hw));
  ScChipRun alone = sc.chip_run_at(8);
  ScChipRun beside = alone;
  beside.collectives = {ScCollective{0, 2e-3, 64e6}};
  beside.collective_units_left = 0.5;
  beside.quantum_s = 1e-12;
  ScChipRun coarse = beside;
  coarse.quantum_s = 1.0;
  const auto r = run_chip_sc_pool({alone, beside, coarse}, 3);
  double t_alone = 0, t_beside = 0;
  for (size_t i = 0; i < r[0].size(); ++i) {
    EXPECT_EQ(r[1][i].seconds, r[2][i].seconds) << "op " << i;
    EXPECT_EQ(r[1][i].dram_read_bytes, r[0][i].dram_read_bytes) << "op " << i;
    EXPECT_EQ(r[1][i].dram_write_bytes, r[0][i].dram_write_bytes) << "op " << i;
    EXPECT_GE(r[1][i].seconds, r[0][i].seconds) << "op " << i;
    t_alone += r[0][i].seconds, t_beside += r[1][i].seconds;
  }
  // It slows the ops, but by no more than it lasts (each overlapped second becomes at most 2 with
  // half the units; its 32 GB/s take a tenth of the T4's 320 GB/s).
  EXPECT_GT(t_beside, t_alone);
  EXPECT_LE(t_beside - t_alone, 2e-3);
}

// The SystemC contention and the twin's closed form (its fluid limit) on the shipped T4 cluster,
// whose interconnect.overlap is set: both stretch backward, and the updates agree within 2%.
// One node (P <= 4): backward outlasts most all-reduces, so the stretch shows in the step (with
// nodes over the network the all-reduce chain is exposed and hides it, OverlapShare.Exposed...).
TEST(SystemcUpdate, OverlapStretchAgreesWithTheTwin) {
  const HardwareSpec hw = load_hw("t4_cluster");
  HardwareSpec free_hw = hw;
  free_hw.interconnect.overlap = OverlapSpec{};
  const LoweredStep step = load_step("resnet18_cifar10");
  const Precision bpe = legacy_precision(hw);
  for (int64_t p : {2, 4}) {
    const double twin = AnalyticUpdate(hw, step, bpe).simulate(64 * p, p).breakdown.t_update_s;
    const double twin0 = AnalyticUpdate(free_hw, step, bpe).simulate(64 * p, p).breakdown.t_update_s;
    const double sc = SystemcUpdate(hw, step, bpe).simulate(64 * p, p).breakdown.t_update_s;
    const double sc0 = SystemcUpdate(free_hw, step, bpe).simulate(64 * p, p).breakdown.t_update_s;
    std::printf("  P=%lld  stretch twin %.3e s  systemc %.3e s  (steps %.6e / %.6e s)\n", static_cast<long long>(p),
                twin - twin0, sc - sc0, twin, sc);
    EXPECT_GT(twin, twin0);
    EXPECT_GT(sc, sc0);
    EXPECT_LE(std::fabs(sc - twin), 0.02 * twin) << "P=" << p;
  }
}

// --trace: one track per array, vector unit, the DMA and each DRAM channel, complete events.
TEST(SystemcUpdate, WritesAChromeTrace) {
  const HardwareSpec hw = load_hw("edge_npu");
  SystemcUpdate sc(hw, load_step("fmnist_mlp"), legacy_precision(hw));
  const std::string path = testing::TempDir() + "kp_trace_test.json";
  sc.set_trace_file(path);
  sc.simulate(8, 1);
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string t = ss.str();
  ASSERT_FALSE(t.empty());
  EXPECT_EQ(t.rfind("{\"displayTimeUnit\"", 0), 0u);
  for (const char* track : {"\"array 0\"", "\"vector unit 0\"", "\"DMA\"", "\"DRAM channel 0\"", "\"DRAM channel 1\""})
    EXPECT_NE(t.find(track), std::string::npos) << track;
  EXPECT_NE(t.find("\"ph\":\"X\""), std::string::npos);
  EXPECT_NE(t.find("fc1 forward"), std::string::npos);
}

}  // namespace
}  // namespace kp
