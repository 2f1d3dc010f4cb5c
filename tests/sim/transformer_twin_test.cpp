// The analytic twin held to the SystemC chip on the full shipped transformers (GPT-2 small,
// BERT-base on SQuAD, Shallue et al.'s Transformer LM on LM1B), not only the tiny test decoder of
// systemc_update_test.cpp: one chip, batch 2, each shipped hardware file, the workload's own
// precision policy. The two must agree op by op (cycles, tiles, bytes) and in the update within
// 2%. Ops whose tiles wait on DMA ("stalled", most of them at batch 2) are counted and printed:
// the twin times the same DMA-bound tiles, so they agree there too. The wall time of the SystemC
// run is printed.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>

#include "core/config_doc.h"
#include "core/hw_spec.h"
#include "core/network_spec.h"
#include "core/workload_spec.h"
#include "sim/analytic/update_analytic.h"
#include "sim/analytic/chip_analytic.h"
#include "sim/systemc/systemc_update.h"

namespace kp {
namespace {

struct Pair {
  const char* hw;
  const char* workload;
};

class TransformerTwin : public testing::TestWithParam<Pair> {};

TEST_P(TransformerTwin, FullFileOneChipAgreesWithSystemc) {
  const std::string src(KP_SOURCE_DIR);
  const HardwareSpec hw = parse_hardware(ConfigDoc::load(src + "/hw_configs/" + GetParam().hw + ".yaml"));
  const WorkloadSpec w = parse_workload(ConfigDoc::load(src + "/workloads/" + GetParam().workload + ".yaml"));
  const LoweredStep step = lower_training_step(resolve_network(w.network), w.optimizer.kind);
  const Precision precision = resolve_precision(w.precision, hw);
  const AnalyticUpdate twin(hw, step, precision);
  const SystemcUpdate sc(hw, step, precision);
  constexpr int64_t kBatch = 2;
  const UpdateResult ra = twin.simulate(kBatch, 1);
  const auto t0 = std::chrono::steady_clock::now();
  const UpdateResult rs = sc.simulate(kBatch, 1);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double err = (rs.breakdown.t_update_s - ra.breakdown.t_update_s) / ra.breakdown.t_update_s;
  const ChipAnalytic chip(hw, precision);
  const std::vector<OpCost> ops = sc.op_costs(rs.per_learner_batch);
  int stalled = 0, differing = 0;
  for (size_t i = 0; i < step.ops.size(); ++i) {
    const OpCost t = chip.cost(step.ops[i], rs.per_learner_batch);
    const OpCost& s = ops[i];
    stalled += s.stall_s > 1e-12 ? 1 : 0;
    const bool same = s.cycles == t.cycles && s.tiles == t.tiles && s.dram_read_bytes == t.dram_read_bytes &&
                      s.dram_write_bytes == t.dram_write_bytes && s.sram_bytes == t.sram_bytes;
    differing += same ? 0 : 1;
  }
  std::printf("  %-13s %-17s M=2 P=1  twin %.12e s  systemc %.12e s  rel %+.2e  ops %zu  stalled %d  "
              "differing %d  systemc wall %.3f s\n",
              GetParam().hw, GetParam().workload, ra.breakdown.t_update_s, rs.breakdown.t_update_s, err,
              step.ops.size(), stalled, differing, wall_s);
  EXPECT_EQ(rs.per_learner_batch, ra.per_learner_batch);
  EXPECT_EQ(rs.kernels, ra.kernels);
  EXPECT_EQ(differing, 0);
  EXPECT_LE(std::fabs(err), 0.02);  // the bound; the printed figure is the measured gap
}

INSTANTIATE_TEST_SUITE_P(Shipped, TransformerTwin,
                         testing::Values(Pair{"h100_cluster", "gpt2_small"}, Pair{"h100_cluster", "bert_base_squad"},
                                         Pair{"h100_cluster", "transformer_lm1b"},
                                         Pair{"tpu_v3_pod", "gpt2_small"}, Pair{"tpu_v3_pod", "bert_base_squad"},
                                         Pair{"t4_cluster", "gpt2_small"}, Pair{"t4_cluster", "bert_base_squad"},
                                         Pair{"a100_dgx", "gpt2_small"}, Pair{"a100_dgx", "bert_base_squad"}),
                         [](const testing::TestParamInfo<Pair>& i) {
                           return std::string(i.param.hw) + "_x_" + i.param.workload;
                         });

}  // namespace
}  // namespace kp
