#pragma once
// The sgemm micro-kernel's depth loop (gemm.cpp), shared with the implicit-GEMM convolution
// (conv_gemm.cpp). Internal to kp_trainer; AVX-512 builds only.
#ifdef __AVX512F__
#include <immintrin.h>

#include <cstdint>

#include "models/trainer/gemm_pack.h"
#include "models/trainer/prefetch.h"

namespace kp::trainer_detail {

// The depth loop prefetches A's rows, and a B read in place by rows (a stride of ~3 KiB, beyond
// the hardware's stride prefetcher's 2 KiB), this many depth steps (~100 cycles) ahead. The
// kernel's hottest instructions were the FMAs waiting on A's loads from L2. Alone: conv2's
// weight gradient over 8 samples (64 x 800 x 1568, B in place by rows) 105 -> 150 GFLOP/s, the
// other products +0-5% (distance 4 less, 16 no more). Whole steps, A/B in one process (0 vs
// both): one thread MLP b=1024 +3.4% (faster in 54 of 80 rounds), CNN +3.3% (58/80), b=128
// +3.0% (25/30), b=16 +8% (22/30); two threads b=1024 +5.2% (42/60), b=128 +2.0% (34/60).
constexpr int64_t kPrefetchSteps = 8;

// C tile (rows x cols <= kMr x kNr) = (C if acc) + A panel * B panel over kc depth steps. The A
// panel is read at `ap + p * a_step`: packed (a_step = kMr, packed_a) or straight from a
// column-major A (a_step = lda), masked to `rows`. Each C element is one chain of FMAs over p
// starting from zero, whatever the tile shape: the result depends only on (m, n, k), not on the
// blocking.
// A packed panel is zero-padded to kMr rows, so it is read with plain loads: a zero-masked
// load also takes an FMA port here (the micro-kernel alone in L1: 125-146 -> 138-159 GFLOP/s);
// the padding rows' sums are never stored.
// B is read at `bp`: from a packed panel or a row-major op(B) (kBCols false: depth step p at
// bp + p * b_step, its columns contiguous), or from a column-major op(B) in place (kBCols true:
// column j at bp + j * b_step, contiguous in p). The values are the same either way.
// kBStrided: a row-major op(B) in place, whose rows the loop prefetches (kPrefetchSteps).
// between(p), after depth step p's FMAs: other work interleaved with them (an inlined functor;
// interleaved_update.h), none by default.
// kHalf: a tile of at most 16 rows (m1 zero), whose c1 neither loads A's second vector nor
// takes an FMA: a dense layer of 10 outputs (the networks' last) computed half its FMAs on
// padding. c1 is left as it was.
struct NoWork {
  void operator()(int64_t) const {}
};
template <int64_t kNr, bool kPackedA, bool kBCols, bool kBStrided, class Between = NoWork,
          bool kHalf = false>
void depth_loop(int64_t kc, const float* ap, int64_t a_step, const float* bp, int64_t b_step,
                __mmask16 m0, __mmask16 m1, __m512 (&c0)[kNr], __m512 (&c1)[kNr],
                const Between& between = Between{}) {
  for (int64_t p = 0; p < kc; ++p, ap += a_step) {
    prefetch(ap, kPrefetchSteps * a_step);
    if (!kHalf) prefetch(ap, kPrefetchSteps * a_step + 16);
    if (kBStrided) {  // the panel's kNr floats of a row may straddle two lines
      prefetch(bp, kPrefetchSteps * b_step);
      prefetch(bp, kPrefetchSteps * b_step + kNr - 1);
    }
    const __m512 a0 = kPackedA ? _mm512_loadu_ps(ap) : _mm512_maskz_loadu_ps(m0, ap);
    const __m512 a1 = kHalf      ? _mm512_setzero_ps()
                      : kPackedA ? _mm512_loadu_ps(ap + 16)
                                 : _mm512_maskz_loadu_ps(m1, ap + 16);
#pragma GCC unroll 16
    for (int j = 0; j < kNr; ++j) {
      const __m512 bj = _mm512_set1_ps(kBCols ? bp[j * b_step + p] : bp[j]);
      c0[j] = _mm512_fmadd_ps(a0, bj, c0[j]);
      if (!kHalf) c1[j] = _mm512_fmadd_ps(a1, bj, c1[j]);
    }
    between(p);
    if (!kBCols) bp += b_step;
  }
}

// The tile's first `cols` columns: (C if acc) + the sums, stored to C (masked to the tile's
// rows: m0, m1) or, given `tile` (kMr floats a column, 64-byte aligned), there for a sink.
template <int64_t kNr>
inline void store_tile(const __m512 (&c0)[kNr], const __m512 (&c1)[kNr], float* c, int64_t ldc,
                       int64_t cols, __mmask16 m0, __mmask16 m1, bool acc, float* tile) {
#pragma GCC unroll 16
  for (int j = 0; j < kNr; ++j) {
    if (j >= cols) break;
    float* cj = c + j * ldc;
    __m512 r0 = c0[j], r1 = c1[j];
    if (acc) {
      r0 = _mm512_add_ps(_mm512_maskz_loadu_ps(m0, cj), r0);
      r1 = _mm512_add_ps(_mm512_maskz_loadu_ps(m1, cj + 16), r1);
    }
    if (tile) {
      _mm512_store_ps(tile + j * kMr, r0);
      _mm512_store_ps(tile + j * kMr + 16, r1);
    } else {
      _mm512_mask_storeu_ps(cj, m0, r0);
      _mm512_mask_storeu_ps(cj + 16, m1, r1);
    }
  }
}

}  // namespace kp::trainer_detail
#endif
