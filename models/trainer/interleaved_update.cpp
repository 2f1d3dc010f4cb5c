// The weight gradient's tiles with the update of the tile before interleaved
// (interleaved_update.h).
// GCC 12 flags its own masked-load intrinsics (_mm512_undefined_ps) as uninitialised.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "models/trainer/interleaved_update.h"

#ifdef __AVX512F__
#include <cstdlib>
#include <algorithm>

#include "models/trainer/gemm_depth_loop.h"

namespace kp::trainer_detail {

namespace {

template <int64_t kNr, OptimizerKind kKind, bool kNorm, bool kBCols, bool kBStrided>
void tile_with_update(InterleavedUpdate& u, int p, int64_t kc, const float* ap, const float* bp,
                      int64_t b_step, int64_t cols, int64_t i0, int64_t j0) {
  InterleavedUpdate::Part& t = u.part(p);
  // Locals, so that the update's stores (through float pointers) cannot alias them.
  const LaneCoeffs k = u.lanes();
  const float* const g = t.g;
  float* const w = t.w;
  float* const v = t.v;
  const int64_t waiting = t.cols, ldw = u.ldw();
  __m512 c0[kNr], c1[kNr], sq = _mm512_setzero_ps();
#pragma GCC unroll 16
  for (int j = 0; j < kNr; ++j) c0[j] = c1[j] = _mm512_setzero_ps();
  if (!u.copies()) {
    depth_loop<kNr, true, kBCols, kBStrided>(
        kc, ap, kMr, bp, b_step, 0xFFFF, 0xFFFF, c0, c1, [&](int64_t step) {
          if (step < waiting)
            InterleavedUpdate::column<kKind, kNorm>(k, g, kMr, w, v, ldw, step, sq);
        });
    for (int64_t j = kc; j < waiting; ++j)
      InterleavedUpdate::column<kKind, kNorm>(k, g, kMr, w, v, ldw, j, sq);
  } else {
    // A copy's weights stream from memory (the Simple CNN's fc1, 1024 x 3136, at depths of 16
    // to 256): column j after depth step j << shift, spread over the loop so that its loads
    // from memory overlap more of the FMAs. Simple CNN steps on one thread, in-process A/B
    // against the update after each tile: M=128 +2.3% and +2.6% (faster in 28 of 30 and 18 of
    // 20 rounds; +2.1% with the columns in the first steps), M=32 +2.5% (16/20), M=16 +0.2%
    // (12/20); one trial on two threads, M=128 +4.8% (16/16).
    int shift = 0;
    while (waiting > 0 && (waiting << (shift + 1)) <= kc) ++shift;
    const int64_t mask = (int64_t{1} << shift) - 1;
    float* const* const copy = t.copy;
    depth_loop<kNr, true, kBCols, kBStrided>(
        kc, ap, kMr, bp, b_step, 0xFFFF, 0xFFFF, c0, c1, [&](int64_t step) {
          if ((step & mask) == 0 && (step >> shift) < waiting)
            InterleavedUpdate::column<kKind, kNorm>(k, g, kMr, w, v, ldw, step >> shift, sq,
                                                    copy[step >> shift]);
        });
    for (int64_t j = std::min(waiting, ((kc - 1) >> shift) + 1); j < waiting; ++j)
      InterleavedUpdate::column<kKind, kNorm>(k, g, kMr, w, v, ldw, j, sq, copy[j]);
  }
  if (waiting > 0) t.sq += double(_mm512_reduce_add_ps(sq));
  t.cols = 0;
  u.wait<kNr>(p, c0, c1, cols, i0, j0);
}

// The tiles of one B panel (interleaved_tiles), each tile as above.
template <int64_t kNr, OptimizerKind kKind, bool kNorm, bool kBCols, bool kBStrided>
void tiles_with_update(InterleavedUpdate& u, int p, int64_t kc, const float* ap, int64_t rows,
                       const float* bp, int64_t b_step, int64_t cols, int64_t i0, int64_t j0) {
  for (int64_t r = 0; r < rows; r += kMr)
    tile_with_update<kNr, kKind, kNorm, kBCols, kBStrided>(u, p, kc, ap + r * kc, bp, b_step,
                                                           cols, i0 + r, j0);
}

template <int64_t kNr, OptimizerKind kKind, bool kNorm>
void tiles_with_update(InterleavedUpdate& u, int p, int64_t kc, const float* ap, int64_t rows,
                       const float* bp, int64_t b_step, bool b_cols, bool b_strided, int64_t cols,
                       int64_t i0, int64_t j0) {
  if (b_cols)
    tiles_with_update<kNr, kKind, kNorm, true, false>(u, p, kc, ap, rows, bp, b_step, cols, i0,
                                                      j0);
  else if (b_strided)
    tiles_with_update<kNr, kKind, kNorm, false, true>(u, p, kc, ap, rows, bp, b_step, cols, i0,
                                                      j0);
  else
    tiles_with_update<kNr, kKind, kNorm, false, false>(u, p, kc, ap, rows, bp, b_step, cols, i0,
                                                       j0);
}

template <int64_t kNr, OptimizerKind kKind>
void tiles_with_update(InterleavedUpdate& u, int p, int64_t kc, const float* ap, int64_t rows,
                       const float* bp, int64_t b_step, bool b_cols, bool b_strided, int64_t cols,
                       int64_t i0, int64_t j0) {
  if (u.norm())
    tiles_with_update<kNr, kKind, true>(u, p, kc, ap, rows, bp, b_step, b_cols, b_strided, cols,
                                        i0, j0);
  else
    tiles_with_update<kNr, kKind, false>(u, p, kc, ap, rows, bp, b_step, b_cols, b_strided, cols,
                                         i0, j0);
}

}  // namespace

template <int64_t kNr>
void interleaved_tiles(InterleavedUpdate& u, int p, int64_t kc, const float* ap, int64_t rows,
                       const float* bp, int64_t b_step, bool b_cols, bool b_strided, int64_t cols,
                       int64_t i0, int64_t j0) {
  switch (u.kind()) {
    case OptimizerKind::Sgd:
      return tiles_with_update<kNr, OptimizerKind::Sgd>(u, p, kc, ap, rows, bp, b_step, b_cols,
                                                        b_strided, cols, i0, j0);
    case OptimizerKind::Momentum:
      return tiles_with_update<kNr, OptimizerKind::Momentum>(u, p, kc, ap, rows, bp, b_step,
                                                             b_cols, b_strided, cols, i0, j0);
    case OptimizerKind::Nesterov:
      return tiles_with_update<kNr, OptimizerKind::Nesterov>(u, p, kc, ap, rows, bp, b_step,
                                                             b_cols, b_strided, cols, i0, j0);
    default: std::abort();  // the Adam family updates by reference_update.h
  }
}

template void interleaved_tiles<4>(InterleavedUpdate&, int, int64_t, const float*, int64_t,
                                   const float*, int64_t, bool, bool, int64_t, int64_t, int64_t);
template void interleaved_tiles<8>(InterleavedUpdate&, int, int64_t, const float*, int64_t,
                                   const float*, int64_t, bool, bool, int64_t, int64_t, int64_t);
template void interleaved_tiles<12>(InterleavedUpdate&, int, int64_t, const float*, int64_t,
                                    const float*, int64_t, bool, bool, int64_t, int64_t, int64_t);

}  // namespace kp::trainer_detail
#endif
