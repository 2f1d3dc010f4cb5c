#pragma once
// The optimizer's update interleaved with the weight gradient's product (gemm.cpp, the sink's
// TileSink::interleaved): each full tile of the gradient waits, in its part's buffer, for the
// next tile's product, whose depth loop applies it one column a depth step, so that the
// update's loads, stores and FMAs fill the gaps between the product's FMAs instead of
// following them. Internal to kp_trainer; AVX-512 builds only.
#ifdef __AVX512F__
#include <cstdlib>
#include <immintrin.h>

#include <cstdint>

#include "models/trainer/gemm_tiles.h"
#include "models/trainer/update_lanes.h"

namespace kp::trainer_detail {

class InterleavedUpdate {
 public:
  // One thread's part of the product (parts run at once): its waiting tile and squared norm.
  struct alignas(64) Part {
    float g[kMr * kNrMax];             // the waiting tile's gradient
    float *w = nullptr, *v = nullptr;  // where the waiting tile's weights and velocities are
    float* copy[kNrMax] = {};          // each column's place in the panels, if copying
    int64_t cols = 0;                  // the waiting tile's columns (0: none waits)
    double sq = 0;  // the part's squared gradient, summed tile by tile in the product's order
  };

  // Rows i and columns j of the product are the weights at w + i + j * ldw and the velocities
  // at v likewise (v null for plain SGD), the new weights also copied to `packed`'s panels if
  // given (update_lanes' copy); `parts` has room for every part of the product.
  InterleavedUpdate(const Coeffs& k, float* w, float* v, int64_t ldw, Part* parts,
                    PackedA* packed = nullptr)
      : m_k(packed ? k : plain(k)),
        m_w(w),
        m_v(v),
        m_ldw(ldw),
        m_parts(parts),
        m_packed(packed) {}
  // Whether the new weights go to panels as well: such weights stream from memory.
  bool copies() const { return m_packed != nullptr; }

  OptimizerKind kind() const { return m_k.kind; }
  bool norm() const { return m_k.norm; }  // whether the squared norm is summed
  int64_t ldw() const { return m_ldw; }
  Part& part(int p) { return m_parts[p]; }
  // The coefficients on the lanes (without a copy, with no software prefetch).
  LaneCoeffs lanes() const { return LaneCoeffs(m_k); }

  // Column j of a tile of kMr rows whose gradient is at g (g_step floats a column), weights at
  // w and velocities at v (v null for plain SGD; ldw floats a column): update_vector on its two
  // halves, the squares into sq, the new weights also streamed to `copy` if given (update_lanes'
  // copy). The waiting tiles here and update_gemm.cpp's full tiles share it. kNorm: as
  // update_vector's. Always inlined: GCC left the calls out of line in the depth loop once the
  // norm doubled the instantiations, and a call there spills the product's accumulators (MLP
  // b=16 steps took 35% longer).
  template <OptimizerKind kKind, bool kNorm>
  __attribute__((always_inline)) static void column(const LaneCoeffs& k, const float* g,
                                                    int64_t g_step, float* w, float* v, int64_t ldw,
                                                    int64_t j, __m512& sq, float* copy = nullptr) {
    const float* const gj = g + j * g_step;
    float* const wj = w + j * ldw;
    float* const vj = kKind == OptimizerKind::Sgd ? nullptr : v + j * ldw;
    const __m512 w0 = update_vector<kKind, kNorm>(k, wj, vj, 0xFFFF, _mm512_loadu_ps(gj), sq);
    const __m512 w1 = update_vector<kKind, kNorm>(k, wj + 16, vj ? vj + 16 : nullptr, 0xFFFF,
                                                  _mm512_loadu_ps(gj + 16), sq);
    if (!copy) return;
    _mm512_stream_ps(copy, w0);
    _mm512_stream_ps(copy + 16, w1);
  }

  // Makes the tile (i0, j0) of `cols` columns, still in the product's accumulators, part p's
  // waiting tile, in the buffer the one before it (applied by now) took.
  template <int64_t kNr>
  __attribute__((always_inline)) void wait(int p, const __m512 (&c0)[kNr],
                                           const __m512 (&c1)[kNr], int64_t cols, int64_t i0,
                                           int64_t j0) {
    Part& t = m_parts[p];
    float* const g = t.g;
#pragma GCC unroll 16
    for (int64_t j = 0; j < kNr; ++j) {
      if (j >= cols) break;
      _mm512_store_ps(g + j * kMr, c0[j]);
      _mm512_store_ps(g + j * kMr + 16, c1[j]);
    }
    t.w = m_w + i0 + j0 * m_ldw;
    t.v = m_v ? m_v + i0 + j0 * m_ldw : nullptr;
    t.cols = cols;
    if (m_packed) {
      int64_t run = 0;
      float* c = nullptr;
      for (int64_t j = 0; j < cols; ++j, c += kMr, --run) {
        if (run == 0) c = m_packed->column(i0, j0 + j, &run);
        t.copy[j] = c;
      }
    }
  }

  // Applies part p's waiting tile, if any, all at once: at the part's end, and before a tile
  // that goes another way, so that the squared norm is summed in the product's order.
  void settle(int p) {
    if (m_k.norm) return settle<true>(p);
    settle<false>(p);
  }

 private:
  // Without a copy (the MLP's weights, from L2 and L3) the hardware's prefetchers keep up (see
  // update_gemm.cpp's full tiles): no software prefetch. With one, the sink's (sink_coeffs).
  static Coeffs plain(Coeffs k) {
    k.prefetch_floats = 0;
    return k;
  }
  template <bool kNorm>
  void settle(int p) {
    switch (m_k.kind) {
      case OptimizerKind::Sgd: return settle<OptimizerKind::Sgd, kNorm>(p);
      case OptimizerKind::Momentum: return settle<OptimizerKind::Momentum, kNorm>(p);
      case OptimizerKind::Nesterov: return settle<OptimizerKind::Nesterov, kNorm>(p);
      default: std::abort();  // the Adam family updates by reference_update.h
    }
  }
  template <OptimizerKind kKind, bool kNorm>
  void settle(int p) {
    Part& t = m_parts[p];
    if (t.cols == 0) return;
    const LaneCoeffs k(m_k);
    __m512 sq = _mm512_setzero_ps();
    for (int64_t j = 0; j < t.cols; ++j)
      column<kKind, kNorm>(k, t.g, kMr, t.w, t.v, m_ldw, j, sq, m_packed ? t.copy[j] : nullptr);
    t.sq += double(_mm512_reduce_add_ps(sq));
    t.cols = 0;
  }

  Coeffs m_k;
  float *m_w, *m_v;
  int64_t m_ldw;
  Part* m_parts;
  PackedA* m_packed;
};

// The product's tiles (i0 + r, j0) of kMr rows and `cols` <= kNr columns over kc depth steps,
// for r = 0, kMr, ... below `rows` (a multiple of kMr), in that order: A the packed panels at ap
// + r * kc, B at bp: a packed panel (b_cols and b_strided false, b_step kNr), or op(B) in place
// by rows (b_strided) or by columns (b_cols), as gemm.cpp's kernel reads them. For each tile,
// part p's waiting tile is applied between the depth steps, one column a step (the rest after
// the last step), or with a copy spread over them, its squares added to the part's sum; then
// this tile waits. Each element of the product is the same chain of FMAs as in gemm.cpp's
// kernel, and each update the same as update_lanes(): the same values. The optimizer's kind
// and B's layout are dispatched once for all the tiles of a B panel, not once a tile.
template <int64_t kNr>
void interleaved_tiles(InterleavedUpdate& u, int p, int64_t kc, const float* ap, int64_t rows,
                       const float* bp, int64_t b_step, bool b_cols, bool b_strided, int64_t cols,
                       int64_t i0, int64_t j0);

}  // namespace kp::trainer_detail
#endif
