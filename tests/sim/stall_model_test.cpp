// Per-fold DRAM stall model against hand-computed cases (the SCALE-Sim comparison is in
// scalesim_reference_test.cpp).
#include "sim/scalesim/stall_model.h"

#include <gtest/gtest.h>

namespace kp {
namespace {

// os on 2x2, M=4, N=2, K=10: two row folds. Fold 1 needs new ifmap rows 2x10 = 20 words at
// 1 word/cycle while fold 0 computes cpf = 10+2+2-2 = 12 cycles: 8 stall cycles.
TEST(StallModel, ReadStallWhenFetchOutlastsCompute) {
  const DramInterfaceSpec dram{8, 8, 100, 1};  // ifmap 4x10 does not fit its 4-word half-buffer
  const StallEstimate s = estimate_dram_stalls(Dataflow::OutputStationary, 2, 2, GemmShape{4, 2, 10}, dram);
  EXPECT_EQ(s.stall_cycles, 8);
  EXPECT_EQ(s.ifmap_words, 40);   // both row folds' blocks
  EXPECT_EQ(s.filter_words, 20);  // one column fold, fetched once
  EXPECT_EQ(s.ofmap_words, 8);
}

TEST(StallModel, ResidentOperandIsFetchedOnce) {
  const DramInterfaceSpec dram{1000, 1000, 100, 1};  // the whole 4x10 ifmap fits: no refetch
  const StallEstimate s = estimate_dram_stalls(Dataflow::OutputStationary, 2, 2, GemmShape{4, 2, 10}, dram);
  EXPECT_EQ(s.stall_cycles, 0);
  EXPECT_EQ(s.ifmap_words, 20);
}

// ws on 2x2, M=T=50, N=2, K=4: two row folds, operands resident. Fold 0's 50x2 = 100 partial sums
// meet a 10-word write half-buffer: the array waits ceil(90/1) = 90 cycles before fold 1.
TEST(StallModel, WriteStallWhenOutputsOverflowTheBuffer) {
  const DramInterfaceSpec dram{1000, 1000, 20, 1};
  const StallEstimate s = estimate_dram_stalls(Dataflow::WeightStationary, 2, 2, GemmShape{50, 2, 4}, dram);
  EXPECT_EQ(s.stall_cycles, 90);
}

TEST(StallModel, HighBandwidthNeverStalls) {
  const DramInterfaceSpec dram{64 * 1024, 64 * 1024, 64 * 1024, 1000};
  for (Dataflow d : {Dataflow::OutputStationary, Dataflow::WeightStationary, Dataflow::InputStationary}) {
    EXPECT_EQ(estimate_dram_stalls(d, 32, 32, GemmShape{196, 64, 800}, dram).stall_cycles, 0);
  }
}

}  // namespace
}  // namespace kp
