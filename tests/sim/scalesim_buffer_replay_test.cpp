// The pieces of the SCALE-Sim memory replay against hand-computed cases and brute-force
// enumerations of SCALE-Sim's documented orders (the whole replay against SCALE-Sim's reports is
// scalesim_memory_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

#include "sim/scalesim/memory_replay.h"
#include "sim/scalesim/operand_stream.h"
#include "sim/scalesim/read_buffer_replay.h"
#include "sim/scalesim/write_buffer_replay.h"

namespace kp {
namespace {

// 200 words: sets of ceil(200/100) = 2 words, a window of 50 sets advancing by 50; 1000 operand
// words are 501 sets (the last one empty); at 10 words/cycle a prefetch half takes 10 + 1 cycles.
TEST(ReadBufferReplay, StreamThatOutrunsThePrefetchChainStalls) {
  ReadBufferReplay buf(200, 1000, 10);
  int64_t offset = 1;
  buf.demand(49, 0, offset);  // in the first window
  EXPECT_EQ(offset, 1);
  buf.demand(50, 5, offset);  // first advance completes at -1 + 11 = 10
  EXPECT_EQ(offset, 5);
  offset = 1;
  buf.demand(100, 100, offset);  // second advance done at 21, long before cycle 100
  EXPECT_EQ(offset, 1);
  EXPECT_EQ(buf.advances(), 2);
}

// Window at sets [100, 150): set 0 comes back only when the window has gone round, 8 advances
// later (starts 150, 200, ..., 500; the window [500, 49) wraps): done at 21 + 8 * 11 = 109.
TEST(ReadBufferReplay, ReReadingAnEvictedBlockWaitsForTheWindowToGoRound) {
  ReadBufferReplay buf(200, 1000, 10);
  int64_t offset = 1;
  buf.demand(50, 0, offset);
  buf.demand(100, 0, offset);
  offset = 1;
  buf.demand(0, 30, offset);
  EXPECT_EQ(buf.advances(), 10);
  EXPECT_EQ(offset, 109 - 30);
  EXPECT_EQ(buf.fetched_words(), 100 + 10 * 100);
}

TEST(ReadBufferReplay, ResidentOperandNeverStalls) {
  ReadBufferReplay buf(200, 50, 1);  // 26 sets fit the 50-set window
  int64_t offset = 1;
  for (int64_t s = 25; s >= 0; --s) buf.demand(s, 0, offset);
  EXPECT_EQ(offset, 1);
  EXPECT_EQ(buf.advances(), 0);
}

// 20 words: active half 10, drain half 10 = ceil(10/4) = 3 lines of 4 words.
TEST(WriteBufferReplay, DrainsPastHalfAndStallsWhenFullDuringADrain) {
  WriteBufferReplay buf(20, 4);
  EXPECT_EQ(buf.write_line(0, 10), 0);  // 10 free: not yet below the active half
  // The 11th word leaves 9 free: lines 0, 1 (full) and 2 (3 words, closed) drain on cycles 1..3,
  // freeing 4 + 4 + 3.
  EXPECT_EQ(buf.write_line(1, 1), 0);
  // 20 free at cycle 2 while the drain runs: word 20 fills the buffer and waits to cycle 3; word
  // 21 starts the next drain (lines 3..5, cycles 3..5) and the last 4 words fit.
  EXPECT_EQ(buf.write_line(2, 25), 1);
}

// SCALE-Sim's anti-diagonal prefetch order, enumerated as compute/systolic_compute_os.py does.
std::map<std::pair<int64_t, int64_t>, int64_t> diagonal_order(int64_t rows, int64_t lanes, int64_t null_from_row,
                                                              int64_t null_from_lane) {
  std::map<std::pair<int64_t, int64_t>, int64_t> pos;
  int64_t next = 0;
  for (int64_t d = 0; d < rows + lanes; ++d) {
    for (int64_t r = std::min(d, rows - 1); r >= std::max<int64_t>(0, d - lanes + 1); --r) {
      const int64_t c = d - r;
      if (r >= null_from_row && c >= null_from_lane) continue;  // -1 entries take no position
      pos[{r, c}] = next++;
    }
  }
  return pos;
}

// os ifmap of M = 5, K = 3 on 2 rows: blocks of 3 rows x 2 lanes, the last block one lane wide.
TEST(OperandStream, DiagonalPositionsFollowScaleSimsOrder) {
  ScaleSimLayer layer;
  layer.gemm = {5, 4, 3};
  layer.ifmap_h = 5, layer.ifmap_w = 3, layer.filter_w = 3;
  const OperandStream s(Dataflow::OutputStationary, OperandRole::Ifmap, 2, 2, layer);
  const auto ref = diagonal_order(9, 2, 6, 1);
  EXPECT_EQ(s.words(), 15);
  for (const auto& [cell, p] : ref) EXPECT_EQ(s.position(cell.first, cell.second), p);
  // Fold row 1 (block 1, rows 3..5), line t = 1: lane 0 reads row 4, lane 1 row 3.
  const LineSpan l = s.line(1, 0, 1);
  EXPECT_EQ(l.count, 2);
  EXPECT_EQ(l.first, ref.at({4, 0}));
  EXPECT_EQ(l.first + 1, ref.at({3, 1}));
  EXPECT_EQ(s.line(2, 0, 1).count, 1);  // the last block has one lane
}

// ws filter (row-major blocks, rows enter flipped): K = 3, N = 3 on 2 x 2.
TEST(OperandStream, RowBlockLinesReadFlippedRows) {
  ScaleSimLayer layer;
  layer.gemm = {4, 3, 3};
  const OperandStream s(Dataflow::WeightStationary, OperandRole::Filter, 2, 2, layer);
  EXPECT_EQ(s.words(), 9);
  EXPECT_EQ(s.line(0, 0, 0).first, 1 * 2);      // row k = 1 of block 0
  EXPECT_EQ(s.line(0, 0, 1).first, 0);          // then k = 0
  EXPECT_EQ(s.line(1, 0, 0).count, 0);          // k = 3 does not exist
  EXPECT_EQ(s.line(1, 1, 1).first, 6 + 2 * 1);  // block 1 (one lane), k = 2
  EXPECT_EQ(s.line(1, 1, 1).count, 1);
}

// 4 x 4 x 1 ifmap, 3 x 3 filter, stride 1: input pixel (1, 1) is read by all four windows, so
// (m = 0, k = 4) has three copies: (m = 1, k = 3), (m = 2, k = 1), (m = 3, k = 0).
TEST(OperandStream, ConvIfmapCopiesShareOneAddress) {
  ScaleSimLayer layer;
  layer.ifmap_h = layer.ifmap_w = 4, layer.filter_h = layer.filter_w = 3, layer.channels = 1;
  layer.gemm = {4, 1, 9};
  const OperandStream s(Dataflow::OutputStationary, OperandRole::Ifmap, 4, 1, layer);
  ASSERT_TRUE(s.has_duplicates());
  EXPECT_EQ(s.max_duplicates(), 8);
  // os ifmap: one block (M = 4 on 4 rows), row = k, lane = m; line t = 4 reads (k = 4 - m, m).
  const LineSpan l = s.line(0, 0, 4);
  ASSERT_EQ(l.count, 4);
  std::vector<int64_t> copies(8);
  const int n = s.duplicates(s.row_of(l, 0), 0, copies.data());  // lane 0, row 4 -> (m 0, k 4)
  ASSERT_EQ(n, 3);
  std::vector<int64_t> want{s.position(3, 1), s.position(1, 2), s.position(0, 3)};
  std::sort(copies.begin(), copies.begin() + n);
  std::sort(want.begin(), want.end());
  EXPECT_EQ(std::vector<int64_t>(copies.begin(), copies.begin() + n), want);
}

// 4 x 4 x 1 ifmap, 3 x 3 filter, stride 2: SCALE-Sim's ceil((4 - 3 + 2) / 2) = 2 output rows
// and cols, so windows 1..3 reach row or column 4: 9 + 6 + 6 + 4 = 25 valid im2col cells of 36.
TEST(OperandStream, RaggedIfmapSkipsCellsPastTheEdge) {
  ScaleSimLayer layer;
  layer.ifmap_h = layer.ifmap_w = 4, layer.filter_h = layer.filter_w = 3, layer.channels = 1, layer.stride = 2;
  layer.gemm = {4, 1, 9};
  const OperandStream s(Dataflow::OutputStationary, OperandRole::Ifmap, 4, 1, layer);  // row = k, lane = m
  ASSERT_TRUE(s.ragged());
  EXPECT_EQ(s.words(), 25);
  // Brute force: SCALE-Sim's diagonal order over the 9 x 4 matrix, null cells dropped
  // (operand_matrix.calc_ifmap_elem_addr: input row (m / 2) * 2 + k / 3, col (m % 2) * 2 + k % 3).
  int64_t next = 0;
  for (int64_t d = 0; d < 9 + 4; ++d) {
    for (int64_t r = std::min<int64_t>(d, 8); r >= std::max<int64_t>(0, d - 3); --r) {
      const int64_t m = d - r, k = r;
      const bool valid = (m / 2) * 2 + k / 3 < 4 && (m % 2) * 2 + k % 3 < 4;
      EXPECT_EQ(s.valid(r, m), valid) << r << "," << m;
      if (valid) {
        EXPECT_EQ(s.position(r, m), next++) << r << "," << m;
      }
    }
  }
  // Line t = 8 reads diagonal 8: (k 8, m 0), (7, 1), (6, 2), (5, 3); (6, 2) reaches input row 4
  // and (5, 3) input column 4, so two are demanded.
  const LineSpan l = s.line(0, 0, 8);
  EXPECT_EQ(l.count, 2);
  EXPECT_EQ(l.first, s.position(8, 0));
}

// 1 x 1 os array, K = 2^31: 2^31 cycles, past the replay's precondition.
TEST(MemoryReplay, RefusesLayersOf2To31Cycles) {
  ScaleSimConfig cfg;
  cfg.array_height = cfg.array_width = 1;
  cfg.ifmap_sram_kb = cfg.filter_sram_kb = cfg.ofmap_sram_kb = 1;
  cfg.interface_bandwidth = InterfaceBandwidth::User;
  ScaleSimLayer layer;
  layer.gemm = {1, 1, int64_t{1} << 31};
  EXPECT_THROW(replay_scalesim_memory(cfg, layer), std::invalid_argument);
  // 1000 cycles run: the first window holds 47 sets of 11 words; the one advance needed (at 10
  // words/cycle, done at -1 + ceil(512/10) + 1 = 52) lands long before word 517 is read at cycle 517.
  layer.gemm = {1, 1, 1000};
  EXPECT_EQ(replay_scalesim_memory(cfg, layer).stall_cycles, 0);
  EXPECT_EQ(replay_scalesim_memory(cfg, layer).ifmap_words, 512 + 512);  // first half, one advance
}

}  // namespace
}  // namespace kp
