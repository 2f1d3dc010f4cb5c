#include "models/trainer/gemm_streamed_a.h"

#include <algorithm>

#include "core/int_math.h"
#include "models/trainer/gemm_depth_loop.h"
#include "models/trainer/gemm_pack.h"

namespace kp::trainer_detail {
bool streams_a(int64_t m, int64_t k, int64_t nc, int64_t nr, int64_t partial_floats) {
  return m * k >= kStreamedAMinFloats && round_up(m, kMr) * round_up(nc, nr) <= partial_floats;
}
}  // namespace kp::trainer_detail

#ifdef __AVX512F__
// GCC 12's own intrinsics (_mm512_undefined_ps inside the masked loads) trip -Wuninitialized.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace kp::trainer_detail {

namespace {

// Sub-block [p0, p0 + ks) of depth block kc for one tile of kW <= kNr columns: the sums so far
// from `pt` (kMr floats a column), back to `pt`, or after the block's last sub-block to C or
// the sink as the kernel stores them (store_tile).
template <int64_t kW>
void sub_block(int64_t p0, int64_t ks, int64_t kc, const float* ap, int64_t lda, const float* bp,
               int64_t b_step, float* pt, float* c, int64_t ldc, int64_t rows, int64_t cols,
               bool acc, TileSink* sink, int64_t i0, int64_t j0, int part) {
  __m512 c0[kW], c1[kW];
  const __mmask16 m0 = lanes(rows), m1 = lanes(rows - 16);
#pragma GCC unroll 16
  for (int j = 0; j < kW; ++j) {
    c0[j] = p0 == 0 ? _mm512_setzero_ps() : _mm512_load_ps(pt + j * kMr);
    c1[j] = p0 == 0 ? _mm512_setzero_ps() : _mm512_load_ps(pt + j * kMr + 16);
  }
  depth_loop<kW, false, false, false>(ks, ap, lda, bp, b_step, m0, m1, c0, c1);
  if (p0 + ks < kc) {
#pragma GCC unroll 16
    for (int j = 0; j < kW; ++j) {
      _mm512_store_ps(pt + j * kMr, c0[j]);
      _mm512_store_ps(pt + j * kMr + 16, c1[j]);
    }
    return;
  }
  alignas(64) float tile[kMr * kW];
  store_tile(c0, c1, c, ldc, cols, m0, m1, acc, sink ? tile : nullptr);
  if (sink) sink->tile(i0, j0, rows, cols, tile, kMr, part);
}

}  // namespace

template <int64_t kNr>
void streamed_a_block(int64_t m, int64_t nc, int64_t kc, const float* a, int64_t lda,
                      const float* wb, float* partial, float* c, int64_t ldc, bool acc,
                      TileSink* sink, int64_t i_off, int64_t j_off, int part) {
  const int64_t tiles_across = ceil_div(nc, kNr);
  constexpr int64_t kMid = kNr > 8 ? 8 : kNr;
  for (int64_t p0 = 0; p0 < kc; p0 += kStreamedASteps) {
    const int64_t ks = std::min(kStreamedASteps, kc - p0);
    for (int64_t ir = 0; ir < m; ir += kMr)
      for (int64_t jr = 0; jr < nc; jr += kNr) {
        const int64_t rows = std::min(kMr, m - ir), cols = std::min(kNr, nc - jr);
        float* const pt = partial + ((ir / kMr) * tiles_across + jr / kNr) * kMr * kNr;
        const float* const ap = a + ir + p0 * lda;
        const float* const bp = wb + jr * kc + p0 * kNr;
        float* const ct = c + ir + jr * ldc;
        // As tile_kernel (gemm.cpp): a last tile of <= 4 (8) columns on a narrower kernel.
        if (cols <= 4)
          sub_block<4>(p0, ks, kc, ap, lda, bp, kNr, pt, ct, ldc, rows, cols, acc, sink,
                       i_off + ir, j_off + jr, part);
        else if (cols <= kMid)
          sub_block<kMid>(p0, ks, kc, ap, lda, bp, kNr, pt, ct, ldc, rows, cols, acc, sink,
                          i_off + ir, j_off + jr, part);
        else
          sub_block<kNr>(p0, ks, kc, ap, lda, bp, kNr, pt, ct, ldc, rows, cols, acc, sink,
                         i_off + ir, j_off + jr, part);
      }
  }
}

template void streamed_a_block<4>(int64_t, int64_t, int64_t, const float*, int64_t, const float*,
                                  float*, float*, int64_t, bool, TileSink*, int64_t, int64_t, int);
template void streamed_a_block<8>(int64_t, int64_t, int64_t, const float*, int64_t, const float*,
                                  float*, float*, int64_t, bool, TileSink*, int64_t, int64_t, int);
template void streamed_a_block<12>(int64_t, int64_t, int64_t, const float*, int64_t,
                                   const float*, float*, float*, int64_t, bool, TileSink*,
                                   int64_t, int64_t, int);

}  // namespace kp::trainer_detail
#endif
