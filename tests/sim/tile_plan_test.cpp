// The shared tile plan and the twin's tile pipeline against hand-computed schedules.
#include "sim/tile_plan.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "sim/analytic/chip_analytic.h"

namespace kp {
namespace {

// A toy chip: one 4x4 ws array at 1 GHz, 1-byte words, 4 vector lanes, DRAM 1 B/ns on one channel
// with no latency (a 64-byte burst takes 64 ns), SRAM ports never the bound.
HardwareSpec toy(double sram_bytes) {
  HardwareSpec hw;
  hw.clock_hz = 1e9;
  hw.array = {4, 4, 1, Dataflow::WeightStationary};
  hw.vector = {4, 1};
  hw.sram = {sram_bytes, 1e12, 4};
  hw.dram = {"ddr4", 1e12, 1e9, 0, 1};
  return hw;
}

// 8x8x8 fits whole (2 x 192 B <= 1000 B): one tile; ws folds: K=8 -> 2 row folds, N=8 -> 2 column
// folds, 2R + C + T - 2 = 18 cycles each: 72 ns. A + B = 128 B (2 bursts) in, C = 64 B out.
TEST(TilePlan, GemmThatFitsIsOneTile) {
  const HardwareSpec hw = toy(1000);
  const TilePlan p = TilePlan::gemm(hw, {8, 8, 8}, 1.0, 1);
  ASSERT_EQ(p.tiles(), 1);
  const TiledCost c = tile_pipeline(p, hw.dram);
  EXPECT_EQ(c.unit_cycles, 72);
  EXPECT_DOUBLE_EQ(c.read_bytes, 128);
  EXPECT_DOUBLE_EQ(c.write_bytes, 64);
  EXPECT_NEAR(c.seconds, (128 + 72 + 64) * 1e-9, 1e-18);
  EXPECT_NEAR(c.stall_s, 192e-9, 1e-18);
}

// With 200 B of SRAM, whole K and N leave (100 - 64) / 16 = 2 rows of A: four 2x8x8 tiles of
// 4 folds x 12 cycles. B is read once (whole K stays resident), A tiles of 16 B every tile, outputs
// of 16 B after each. Pipeline: R0 = 80 B (128 ns); tile 0 max(48, R1 64) = 64; tiles 1, 2
// max(48, W + R = 128) = 128; tile 3 max(48, W2 64) = 64; final write 64: 576 ns.
TEST(TilePlan, GemmSpillsIntoMTilesAndStallsOnTheDma) {
  const HardwareSpec hw = toy(200);
  const TilePlan p = TilePlan::gemm(hw, {8, 8, 8}, 1.0, 1);
  EXPECT_EQ(p.tm(), 2);
  EXPECT_EQ(p.tn(), 8);
  EXPECT_EQ(p.tk(), 8);
  ASSERT_EQ(p.tiles(), 4);
  EXPECT_EQ(p.step(0).read_bytes, 80);
  EXPECT_EQ(p.step(1).read_bytes, 16);
  EXPECT_EQ(p.step(2).write_bytes, 16);
  const TiledCost c = tile_pipeline(p, hw.dram);
  EXPECT_EQ(c.unit_cycles, 4 * 48);
  EXPECT_DOUBLE_EQ(c.read_bytes, 128);
  EXPECT_DOUBLE_EQ(c.write_bytes, 64);
  EXPECT_NEAR(c.seconds, 576e-9, 1e-18);
  for (int64_t t = 0; t < p.tiles(); ++t) EXPECT_LE(p.step(t).footprint_bytes, 200);
}

// Implicit GEMM: an A tile moves a_unique_fraction of its bytes (rounded up per tile).
TEST(TilePlan, ImplicitGemmMovesTheTensorNotTheIm2colView) {
  const HardwareSpec hw = toy(1000);
  const TilePlan p = TilePlan::gemm(hw, {8, 8, 9}, 1.0 / 9, 1);
  ASSERT_EQ(p.tiles(), 1);
  EXPECT_EQ(p.step(0).read_bytes, 8 + 9 * 8);
}

// A weight-gradient GEMM (K = batch x pixels) far larger than SRAM: traffic is linear in the batch.
TEST(TilePlan, BlockedTrafficIsLinearInTheBatch) {
  HardwareSpec hw = toy(512 * 1024);
  hw.array = {32, 32, 1, Dataflow::WeightStationary};
  const TiledCost c1 = tile_pipeline(TilePlan::gemm(hw, {1152, 128, 32 * 1024}, 1.0, 1), hw.dram);
  const TiledCost c2 = tile_pipeline(TilePlan::gemm(hw, {1152, 128, 64 * 1024}, 1.0, 1), hw.dram);
  EXPECT_DOUBLE_EQ(c2.read_bytes, 2 * c1.read_bytes);
  EXPECT_DOUBLE_EQ(c2.write_bytes, c1.write_bytes);
  EXPECT_GE(c1.read_bytes, 1152.0 * 32 * 1024 + 32.0 * 1024 * 128);
}

// 100 elements x 2 tensors fit in half of 1000 B: one SRAM-resident tile, ceil(200 / 4) = 50 cycles.
// 1000 elements stream in chunks of 1000 / (2 x 2) = 250: reads and writes of 250 B (4 bursts,
// 256 ns) around 125-cycle computes: 256 + 256 + 512 + 512 + 256 + 256 = 2048 ns.
TEST(TilePlan, ElementwiseOnChipOrStreamed) {
  const HardwareSpec hw = toy(1000);
  const TiledCost on = tile_pipeline(TilePlan::elementwise(hw, 100, 2, 2, 1), hw.dram);
  EXPECT_EQ(on.tiles, 1);
  EXPECT_EQ(on.unit_cycles, 50);
  EXPECT_DOUBLE_EQ(on.read_bytes + on.write_bytes, 0);
  EXPECT_NEAR(on.seconds, 50e-9, 1e-18);
  const TiledCost st = tile_pipeline(TilePlan::elementwise(hw, 1000, 2, 2, 1), hw.dram);
  EXPECT_EQ(st.tiles, 4);
  EXPECT_EQ(st.unit_cycles, 500);
  EXPECT_DOUBLE_EQ(st.read_bytes, 1000);
  EXPECT_DOUBLE_EQ(st.write_bytes, 1000);
  EXPECT_NEAR(st.seconds, 2048e-9, 1e-18);
}

// Bursts interleave over channels from channel 0; one latency per DMA batch.
// An os chip of `count` 4x4 arrays at 1 GHz, 1-byte words, 4 vector lanes, a large SRAM.
HardwareSpec os_chip(int64_t count) {
  HardwareSpec hw = toy(1e6);
  hw.array = {4, 4, count, Dataflow::OutputStationary};
  return hw;
}

// Wave quantization: 20 x 4 x 8 on 4 arrays has 5 folds (5 row folds, 1 column fold): two waves
// of cpf = T + R + C - 2 = 8 + 4 + 4 - 2 = 14 cycles. No split: the folds already fill the arrays.
TEST(TilePlan, FoldsAreDealtInWaves) {
  const HardwareSpec hw = os_chip(4);
  const TilePlan p = TilePlan::gemm(hw, {20, 4, 8}, 1.0, 1);
  ASSERT_EQ(p.tiles(), 1);
  EXPECT_EQ(p.split(), 1);
  EXPECT_EQ(p.step(0).waves, 2);
  EXPECT_EQ(p.step(0).unit_cycles, 28);
  // 109 folds on 108 arrays: two waves (109 x 1 output folds, K = 1: cpf = 1 + 6 = 7).
  const HardwareSpec big = os_chip(108);
  const TilePlan q = TilePlan::gemm(big, {4 * 109, 4, 1}, 1.0, 1);
  ASSERT_EQ(q.tiles(), 1);
  EXPECT_EQ(q.step(0).waves, 2);
  EXPECT_EQ(q.step(0).unit_cycles, 14);
}

// The streaming cut keeps whole waves: 40 x 4 x 8 on 8 arrays (10 row folds) used to be cut into
// 5 tiles of 8 rows (2 folds each, 5 waves of 14 cycles); a wave is 8 row folds (32 rows) and
// 40 < 4 x 32, so it stays one tile of 10 folds: 2 waves, 28 cycles.
TEST(TilePlan, StreamingCutKeepsWholeWaves) {
  const HardwareSpec hw = os_chip(8);
  const TilePlan p = TilePlan::gemm(hw, {40, 4, 8}, 1.0, 1);
  ASSERT_EQ(p.tiles(), 1);
  EXPECT_EQ(tile_pipeline(p, hw.dram).unit_cycles, 28);
}

// Split-K: 4 x 4 x 64 is one output fold on 8 arrays. Per split s: cpf = 64/s + 6 cycles, then
// (s - 1) x 16 adds on 4 lanes: s = 1: 70 ns; 2: 38 + 4 = 42; 4: 22 + 12 = 34; 8: 14 + 28 = 42.
// The plan takes s = 4. DRAM (1 B/ns, one channel): A + B = 512 B in (512 ns), 16 B out (one
// 64-byte burst, 64 ns): 512 + 34 + 64 = 610 ns.
TEST(TilePlan, SplitKPicksTheFastestSplitAndChargesTheReduction) {
  const HardwareSpec hw = os_chip(8);
  const TilePlan p = TilePlan::gemm(hw, {4, 4, 64}, 1.0, 1);
  ASSERT_EQ(p.tiles(), 1);
  EXPECT_EQ(p.split(), 4);
  const TileStep s = p.step(0);
  EXPECT_EQ(s.units_busy, 4);
  EXPECT_EQ(s.unit_cycles, 22);
  EXPECT_DOUBLE_EQ(s.vector_ops, 48);
  EXPECT_NEAR(s.reduce_s, 12e-9, 1e-18);
  EXPECT_NEAR(s.compute_s, 34e-9, 1e-18);
  // SRAM: A 4x64 + B 64x4 + C 16 (1 B each) + 3 other partials of 16 fp32 + the reduction's read of
  // 4 partials of 16 fp32: 528 + 192 + 256.
  EXPECT_DOUBLE_EQ(s.sram_bytes, 528 + 192 + 256);
  EXPECT_DOUBLE_EQ(s.footprint_bytes, 2 * 528 + 192);
  const TiledCost c = tile_pipeline(p, hw.dram);
  EXPECT_NEAR(c.seconds, 610e-9, 1e-18);
  EXPECT_DOUBLE_EQ(c.macs, 4.0 * 4 * 64);
  // On one vector lane the reduction costs more: s = 2: 38 + 16 = 54 ns, s = 4: 22 + 48 = 70,
  // s = 8: 14 + 112 = 126: the plan takes 2.
  HardwareSpec slow = hw;
  slow.vector = {1, 1};
  EXPECT_EQ(TilePlan::gemm(slow, {4, 4, 64}, 1.0, 1).split(), 2);
}

TEST(TilePlan, DramBatchTime) {
  DramSpec d{"hbm2", 1e12, 8e9, 100e-9, 4};  // 2 B/ns per channel: a burst takes 32 ns
  const int64_t one[1] = {64 * 9};           // 9 bursts: 3 on channel 0
  EXPECT_NEAR(dram_batch_s(d, one, 1), 100e-9 + 3 * 32e-9, 1e-18);
  const int64_t two[2] = {64, 64 * 4};       // 1 + 1 bursts on channel 0
  EXPECT_NEAR(dram_batch_s(d, two, 2), 100e-9 + 2 * 32e-9, 1e-18);
  const int64_t none[1] = {0};
  EXPECT_EQ(dram_batch_s(d, none, 1), 0);
}

// The closed form (representative tiles with multiplicities) equals walking every tile.
double walk_every_tile(const TilePlan& p, const DramSpec& d) {
  double s = 0;
  for (int64_t t = 0; t < p.tiles(); ++t) {
    const int64_t batch[2] = {t > 0 ? p.step(t - 1).write_bytes : 0, t + 1 < p.tiles() ? p.step(t + 1).read_bytes : 0};
    s += std::max(p.step(t).compute_s, dram_batch_s(d, batch, 2));
  }
  const int64_t r0 = p.step(0).read_bytes, wl = p.step(p.tiles() - 1).write_bytes;
  return s + dram_batch_s(d, &r0, 1) + dram_batch_s(d, &wl, 1);
}

TEST(TilePlan, ClosedFormEqualsWalkingEveryTile) {
  for (double sram : {300.0, 2000.0, 20000.0}) {
    for (Dataflow df : {Dataflow::OutputStationary, Dataflow::WeightStationary, Dataflow::InputStationary}) {
     for (int64_t count : {1, 8}) {  // 8 arrays: the small outputs split K
      HardwareSpec hw = toy(sram);
      hw.array.dataflow = df, hw.array.count = count;
      hw.dram.channels = 3, hw.dram.latency_s = 7e-9;
      for (const GemmDims g : {GemmDims{37, 29, 53}, GemmDims{301, 7, 999}, GemmDims{5, 203, 411}, GemmDims{999, 64, 9},
                                GemmDims{3, 5, 4000}}) {
        const TilePlan p = TilePlan::gemm(hw, g, 0.5, 1);
        const TiledCost c = tile_pipeline(p, hw.dram);
        EXPECT_NEAR(c.seconds, walk_every_tile(p, hw.dram), 1e-12 * c.seconds) << p.tiles() << " tiles";
        EXPECT_DOUBLE_EQ(c.macs, static_cast<double>(g.m) * g.n * g.k);
      }
      const TilePlan e = TilePlan::elementwise(hw, 12345, 3, 2.5, 2);
      EXPECT_NEAR(tile_pipeline(e, hw.dram).seconds, walk_every_tile(e, hw.dram), 1e-12 * walk_every_tile(e, hw.dram));
     }
    }
  }
}

}  // namespace
}  // namespace kp
