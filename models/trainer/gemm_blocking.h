#pragma once
// The blocking rules of the sgemm (gemm.cpp): block sizes, when an operand is read in place
// instead of packed, and how a product with a sink (the optimizer's fused update) is blocked
// and tiled. Each rule's measurement is with it. Internal to kp_trainer.
#include <algorithm>
#include <cstdint>

#include "models/trainer/gemm.h"
#include "models/trainer/gemm_pack.h"
#include "models/trainer/gemm_tiles.h"

namespace kp::trainer_detail {

// Register tile MR x NR = 2 x 12 zmm accumulators (2 x 8 for a few columns); a KC x NR panel of
// B (15 KiB) stays in the 48 KiB L1d while an MC x KC block of A (160 KiB) streams from L2.
// Block sizes measured on a Zen 5 core (KC 192-512, MC 96-480 tried): larger blocks (BLIS-like
// 384 x 480) lost 10-30% there; on the Xeon (Sapphire/Emerald Rapids class) KC 128-392 were
// within the shared machine's noise, so KC (which sets the rounding) stayed. A column-major A
// is read in place, unpacked, for n <= kDirectAMaxN: 256 x n x 784 at n = 4: 40 vs 26 GFLOP/s,
// n = 16: 80 vs 70, n = 32: even, n >= 64: packing wins by 10-20% (one core of that Xeon).
constexpr int64_t kDirectAMaxN = 24, kDirectBMaxM = 64, kSmallN = 48;
// B is also read in place when it fits in kInPlaceBMaxBytes and C has at most kMcInPlaceB rows,
// all of them one row block (see sgemm_blocked).
constexpr int64_t kMcInPlaceB = 256, kInPlaceBMaxBytes = int64_t{1} << 20;
constexpr int64_t kKc = kSgemmSingleBlockDepth, kMc = 128, kNc = 3072;
static_assert(kKc == kSgemmSingleBlockDepth);

// A product with a sink takes all of C's rows as one row block when op(A)'s depth block fits in
// half of L2 (kSinkMaxAFloats) and either the packed B block (KC x NC) exceeds L2 or the depth
// is at most kSinkShallowDepth: each B block is then read once rather than once per MC rows, and
// the sink (the optimizer's fused update) walks whole columns of the weights instead of sweeping
// all of them once per MC-row piece, which at a shallow depth is most of the product's time.
// The Simple CNN's fc1 weight gradient (1024 x 3136 x M) had 8 row blocks; whole steps on one
// thread (in-process A/B rounds; M <= 8 now go column by column, update_gemm.cpp): M=2 +26% (20
// of 20), 4 +19% (20/20), 16 +9.3% (20/20), 32 +4.2% (15/16), 64 +3.2% (14/16), 128 +1.8% and
// +2.7% (20 of 30, twice; B 1.5 MiB). With a deep product whose B fits in L2 (the MLP at
// b=1024, 256 x 784 x 1024) one block was 1.5% slower (old faster in 22 of 30); the MLP's other
// batches already read B in place as one block.
constexpr int64_t kSinkMaxAFloats = int64_t{1} << 17;  // 512 KiB
constexpr int64_t kSinkShallowDepth = 64;
inline bool one_row_block_for_sink(int64_t m, int64_t n, int64_t kc) {
  const bool b_beyond_l2 =
      round_up(std::min(n, kNc), kNrMax) * kc * int64_t{sizeof(float)} > kInPlaceBMaxBytes;
  return (b_beyond_l2 || kc <= kSinkShallowDepth) && round_up(m, kMr) * kc <= kSinkMaxAFloats;
}

// A sink's product over a C of at least kSinkNarrowMinFloats (4 MiB: the weights and velocities
// the update walks come from L3 or memory, not L2) runs on narrower register tiles, so that the
// update walks fewer columns at once: 32 x 4 at a depth of at most kSinkNarrowMaxDepth, 32 x 8
// deeper (where a 4-column tile's loads of A would cost more than the walk saves). A bare
// update pass over 1024 x 3136 weights in tiles down the columns (both arrays, from memory)
// took 1.05 ms walking 1 column at a time, 1.39 ms for 4, 1.60 for 8 and 2.17 for 12. Simple
// CNN steps on one thread, in-process A/B: 4 columns against 12 at M=2 +14% (19 of 20 rounds),
// 4 +17% (18/20), 16 +12% (20/20), 32 +3.9% (12/16), 64 -2.0% (9/20); 8 against 12 at M=64
// +2.1% (17/20), 128 +1.5% and +1.2% (26 and 28 of 30), 256 +0.6% (9/12). The MLP (weights
// from L2 and L3) lost 7% at b=4 and 10% at b=16 on 4 columns, and keeps its tiles (its C is
// 0.4 MiB a part). Returns the width, or 0 for the usual choice.
constexpr int64_t kSinkNarrowMaxDepth = 32, kSinkNarrowMinFloats = int64_t{1} << 20;
inline int64_t sink_tile_width(bool sink, int64_t m, int64_t n, int64_t k) {
  if (!sink || m * n < kSinkNarrowMinFloats) return 0;
  return k <= kSinkNarrowMaxDepth ? 4 : 8;
}

// A sink's optimizer update is interleaved with the product (interleaved_update.h) over full
// tiles at depths up to this: a tile's update then fills the next tile's depth loop, where after
// the tile it waited for its loads and stores with the FMA port idle. MLP steps on one thread,
// in-process A/B against the update after each tile (update_gemm.cpp's full tiles): b=8 +3.5%
// (faster in 27 of 30 rounds), b=16 +3.6% and +4.9% (29/30, 24/30), b=24 +0.5% (28/30), b=4
// even; one trial on two threads, b=16 +2.5% (17/20). Deeper, the update's registers crowd the
// 32 x 12 tile's (GCC spills one of A's vectors): b=32 even, b=48 -1.5%, b=64 -2.2%, b=128
// -3.0%. An update that also copies the new weights to panels (from memory, not the FMA
// port's) is interleaved at any depth (interleaved_update.cpp). The same values: each element
// is the same chain of FMAs, each update the same.
constexpr int64_t kInterleaveMaxDepth = 24;

}  // namespace kp::trainer_detail
