// Fold timing against hand-computed cases (formulas in ../shared/REFERENCES.md).
#include "sim/fold_timing.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace kp {
namespace {

// Fashion-MNIST conv1 "same": 28x28 outputs, 32 filters, 5x5x1 window.
constexpr GemmShape kConv1{784, 32, 25};

TEST(FoldTiming, OutputStationaryConv1On32x32) {
  const FoldTiming t = fold_timing(Dataflow::OutputStationary, 32, 32, kConv1);
  EXPECT_EQ(t.row_folds, 25);  // ceil(784/32)
  EXPECT_EQ(t.col_folds, 1);
  EXPECT_EQ(t.folds, 25);
  EXPECT_EQ(t.cycles_per_fold, 25 + 32 + 32 - 2);
  EXPECT_EQ(t.total_cycles, 25 * 87 - 1);
  EXPECT_EQ(t.compute_cycles, 25 * 87);
  EXPECT_EQ(t.macs, 784 * 32 * 25);
  EXPECT_DOUBLE_EQ(t.mapping_efficiency, (24 + 0.5) / 25);  // last row fold holds 16 of 32 rows
  EXPECT_DOUBLE_EQ(t.overall_util, 627200.0 / (2174.0 * 1024));
  EXPECT_DOUBLE_EQ(t.compute_util, 627200.0 / (2175.0 * 1024));
}

TEST(FoldTiming, WeightStationaryConv1On32x32) {
  const FoldTiming t = fold_timing(Dataflow::WeightStationary, 32, 32, kConv1);
  EXPECT_EQ(t.folds, 1);  // K = 25 rows, N = 32 cols
  EXPECT_EQ(t.cycles_per_fold, 2 * 32 + 32 + 784 - 2);
  EXPECT_EQ(t.total_cycles, 877);
  EXPECT_EQ(t.compute_cycles, 878 + 31);  // SCALE-Sim's ws window adds C - 1
  EXPECT_DOUBLE_EQ(t.mapping_efficiency, 25.0 * 32 / 1024);
}

TEST(FoldTiming, InputStationaryConv1On32x32) {
  const FoldTiming t = fold_timing(Dataflow::InputStationary, 32, 32, kConv1);
  EXPECT_EQ(t.row_folds, 1);   // K = 25
  EXPECT_EQ(t.col_folds, 25);  // M = 784
  EXPECT_EQ(t.cycles_per_fold, 64 + 32 + 32 - 2);
  EXPECT_EQ(t.total_cycles, 25 * 126 - 1);
}

// A non-square array separates R from C: R = 8, C = 4, GEMM M=10, N=6, K=20.
TEST(FoldTiming, NonSquareArraySeparatesRowsFromCols) {
  const GemmShape g{10, 6, 20};
  const FoldTiming ws = fold_timing(Dataflow::WeightStationary, 8, 4, g);
  EXPECT_EQ(ws.row_folds, 3);  // K=20 over 8 rows
  EXPECT_EQ(ws.col_folds, 2);  // N=6 over 4 cols
  EXPECT_EQ(ws.cycles_per_fold, 2 * 8 + 4 + 10 - 2);
  EXPECT_EQ(ws.total_cycles, 6 * 28 - 1);
  EXPECT_EQ(ws.compute_cycles, 6 * (28 + 4 - 1));
  EXPECT_DOUBLE_EQ(ws.mapping_efficiency, 20.0 * 6 / (6 * 32));

  const FoldTiming is = fold_timing(Dataflow::InputStationary, 8, 4, g);
  EXPECT_EQ(is.row_folds, 3);  // K=20
  EXPECT_EQ(is.col_folds, 3);  // M=10 over 4 cols
  EXPECT_EQ(is.cycles_per_fold, 2 * 8 + 4 + 6 - 2);
  EXPECT_EQ(is.total_cycles, 9 * 24 - 1);

  const FoldTiming os = fold_timing(Dataflow::OutputStationary, 8, 4, g);
  EXPECT_EQ(os.row_folds, 2);  // M=10 over 8 rows
  EXPECT_EQ(os.col_folds, 2);  // N=6 over 4 cols
  EXPECT_EQ(os.cycles_per_fold, 20 + 8 + 4 - 2);
  EXPECT_EQ(os.total_cycles, 4 * 30 - 1);
  EXPECT_DOUBLE_EQ(os.mapping_efficiency, 60.0 / (4 * 32));
}

TEST(FoldTiming, SinglePeArrayIsSequential) {
  const FoldTiming t = fold_timing(Dataflow::OutputStationary, 1, 1, GemmShape{3, 2, 5});
  EXPECT_EQ(t.folds, 6);
  EXPECT_EQ(t.cycles_per_fold, 5);
  EXPECT_EQ(t.total_cycles, 29);
  EXPECT_DOUBLE_EQ(t.mapping_efficiency, 1.0);
}

TEST(FoldTiming, RejectsNonPositiveSizes) {
  EXPECT_THROW(fold_timing(Dataflow::OutputStationary, 0, 32, kConv1), std::invalid_argument);
  EXPECT_THROW(fold_timing(Dataflow::OutputStationary, 32, 32, GemmShape{0, 1, 1}), std::invalid_argument);
}

}  // namespace
}  // namespace kp
