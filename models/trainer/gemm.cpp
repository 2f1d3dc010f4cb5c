#include "models/trainer/gemm.h"

#include "models/trainer/gemm_blocking.h"
#include "models/trainer/gemm_depth_loop.h"
#include "models/trainer/gemm_pack.h"
#include "models/trainer/gemm_streamed_a.h"
#include "models/trainer/gemm_tiles.h"
#include "models/trainer/interleaved_update.h"
#include "models/trainer/worker_pool.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#ifdef __AVX512F__
// GCC 12's own intrinsics (_mm512_undefined_ps inside the masked loads) trip -Wuninitialized.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#endif

namespace kp::trainer_detail {

void GemmWorkspace::set_pool(WorkerPool* pool) {
  m_pool = pool;
  m_parts.resize(static_cast<size_t>(pool ? pool->threads() : 1));
}

void GemmWorkspace::reserve(int64_t m, int64_t n, int64_t k) {
  if (m < 1 || n < 1 || k < 1) return;
  // Not depth_block(k): a smaller depth can have a larger block (10192 -> 32 x 319, but 8624 ->
  // 27 x 320, the last chunk of a convolution's samples), and every block is <= min(k, kKc).
  const int64_t kc = std::min(k, kKc);
  auto a = static_cast<size_t>(round_up(std::min(m, std::max(kMc, kMcInPlaceB)), kMr) * kc);
  // A sink's one row block (one_row_block_for_sink: a product's depth block is <= kc).
  a = std::max(a, static_cast<size_t>(std::min(round_up(m, kMr) * kc, kSinkMaxAFloats)));
  const auto b = static_cast<size_t>(round_up(std::min(n, kNc), kNrMax) * kc);
  const auto parts = static_cast<int64_t>(m_parts.size());
  if (parts > 1 && split_by_depth(m, n, static_cast<int>(parts))) {  // a depth split's scratch
    const auto ks = static_cast<size_t>((ceil_div(k, depth_block(k)) - 1) * m * n);
    if (ks > m_ksplit.size()) m_ksplit.assign(ks, 0.0f);
  } else if (parts > 1 && !split_by_rows(m, n, static_cast<int>(parts))) {
    m_shared_a.reserve(m, k);
  }
  for (Buffers& p : m_parts) {  // a part never needs more than the whole product
    if (a > p.a.size()) p.a.assign(a, 0.0f);
    if (b > p.b.size()) p.b.assign(b, 0.0f);
  }
}

#ifdef __AVX512F__

namespace {

// Where the kernel reads its B panel: packed (step kNr), or op(B) in place.
struct BPanel {
  enum class Layout { Packed, InPlaceRows, InPlaceCols };  // see depth_loop (gemm_depth_loop.h)
  const float* p;
  int64_t step;
  Layout layout;
};

template <int64_t kNr, bool kPackedA, bool kHalf = false>
void panel_depth_loop(int64_t kc, const float* ap, int64_t a_step, BPanel b, __mmask16 m0,
                      __mmask16 m1, __m512 (&c0)[kNr], __m512 (&c1)[kNr]) {
  const NoWork none;
  if (b.layout == BPanel::Layout::InPlaceCols)
    depth_loop<kNr, kPackedA, true, false, NoWork, kHalf>(kc, ap, a_step, b.p, b.step, m0, m1,
                                                          c0, c1, none);
  else if (b.layout == BPanel::Layout::InPlaceRows)
    depth_loop<kNr, kPackedA, false, true, NoWork, kHalf>(kc, ap, a_step, b.p, b.step, m0, m1,
                                                          c0, c1, none);
  else
    depth_loop<kNr, kPackedA, false, false, NoWork, kHalf>(kc, ap, a_step, b.p, b.step, m0, m1,
                                                           c0, c1, none);
}

template <int64_t kNr>
void kernel(int64_t kc, const float* ap, int64_t a_step, bool packed_a, BPanel bp, float* c,
            int64_t ldc, int64_t rows, int64_t cols, bool acc, TileSink* sink, int64_t i0,
            int64_t j0, int part) {
  __m512 c0[kNr], c1[kNr];
#pragma GCC unroll 16
  for (int j = 0; j < kNr; ++j) c0[j] = c1[j] = _mm512_setzero_ps();
  const __mmask16 m0 = lanes(rows), m1 = lanes(rows - 16);
  // A tile of <= 16 rows (the last dense layer's 10 outputs: its forward and weight gradient)
  // without the FMAs on padding: c1 stays zero, and m1 masks it out of the stores. MLP steps on
  // one thread, in-process A/B: b=16 +0.7% and +1.6% (faster in 22 of 30 and 22 of 40 rounds),
  // b=128 +0.6% (12/16), b=4 +0.9% (13/20); the same values.
  if (rows <= 16) {
    if (packed_a)
      panel_depth_loop<kNr, true, true>(kc, ap, a_step, bp, m0, m1, c0, c1);
    else
      panel_depth_loop<kNr, false, true>(kc, ap, a_step, bp, m0, m1, c0, c1);
  } else if (packed_a) {
    panel_depth_loop<kNr, true>(kc, ap, a_step, bp, m0, m1, c0, c1);
  } else {
    panel_depth_loop<kNr, false>(kc, ap, a_step, bp, m0, m1, c0, c1);
  }
  alignas(64) float tile[kMr * kNr];
  store_tile(c0, c1, c, ldc, cols, m0, m1, acc, sink ? tile : nullptr);
  if (sink) sink->tile(i0, j0, rows, cols, tile, kMr, part);
}

// kernel<kNr>, or for a last tile of at most 4 (8) columns kernel<4> (<8>) on the same B panel
// (its first columns): the padding columns' FMAs are not computed, and each element is the same
// chain of FMAs. Conv2's forward and input gradient (196 columns a sample: 16 tiles of 12 and
// one of 4) computed 4% of their FMAs on padding.
template <int64_t kNr>
void tile_kernel(int64_t kc, const float* ap, int64_t a_step, bool packed_a, BPanel bp, float* c,
                 int64_t ldc, int64_t rows, int64_t cols, bool acc, TileSink* sink, int64_t i0,
                 int64_t j0, int part) {
  if (kNr > 4 && cols <= 4)
    return kernel<4>(kc, ap, a_step, packed_a, bp, c, ldc, rows, cols, acc, sink, i0, j0, part);
  if (kNr > 8 && cols <= 8)
    return kernel<8>(kc, ap, a_step, packed_a, bp, c, ldc, rows, cols, acc, sink, i0, j0, part);
  kernel<kNr>(kc, ap, a_step, packed_a, bp, c, ldc, rows, cols, acc, sink, i0, j0, part);
}

// The full row panels [0, rows) of a packed A block against one B panel, with the sink's update
// interleaved: interleaved_tiles on the tile width tile_kernel picks. sgemm_blocked decides this
// once a block; decided in kernel, each tile's call through it (its frame, the sink's virtual
// interleaved(), the kind's switch) took ~2.5% of an MLP b=16 step (perf). MLP steps on
// one thread, in-process A/B against the tiles through kernel: b=4 +9.7%, b=8 +6.2%, b=16 +5.1%
// (faster in 20 of 20, 20/20, 38/40 rounds); one trial on two threads, b=16 +2.8% (18/20);
// Simple CNN M=32 +3.9% (8/10), M=128 -0.9% (4/8, the noise of a busy hour).
template <int64_t kNr>
void interleaved_panel(InterleavedUpdate& u, int part, int64_t kc, const float* ap, int64_t rows,
                       const BPanel& bp, int64_t cols, int64_t i0, int64_t j0) {
  const bool b_cols = bp.layout == BPanel::Layout::InPlaceCols;
  const bool b_rows = bp.layout == BPanel::Layout::InPlaceRows;
  if (kNr > 4 && cols <= 4)
    return interleaved_tiles<4>(u, part, kc, ap, rows, bp.p, bp.step, b_cols, b_rows, cols, i0,
                                j0);
  if (kNr > 8 && cols <= 8)
    return interleaved_tiles<8>(u, part, kc, ap, rows, bp.p, bp.step, b_cols, b_rows, cols, i0,
                                j0);
  interleaved_tiles<kNr>(u, part, kc, ap, rows, bp.p, bp.step, b_cols, b_rows, cols, i0, j0);
}

template <int64_t kNr>
void sgemm_blocked(Trans ta, Trans tb, int64_t m, int64_t n, int64_t k, const float* a,
                   int64_t lda, const PackedA* pa, const float* b, int64_t ldb, float* c,
                   int64_t ldc, bool accumulate, GemmWorkspace& ws, TileSink* sink,
                   int64_t i_off, int64_t j_off, int part) {
  const int64_t kb = depth_block(k);
  // A column-major A is read in place when few columns of C share it: packing it would cost as
  // much as the product (the dense forward at batch 16 re-packed all weights every step).
  const bool direct_a = !pa && ta == Trans::No && n <= kDirectAMaxN;
  // B is read in place when few row panels share each of its panels: packing (a transpose for a
  // column-major B) cost about as much as the product's reads of it (only a last, partial panel
  // is packed). Alone: conv2's forward (64 x 196 x 800) 114 -> 132 GFLOP/s, conv1's (32 x 10192
  // x 25) 85 -> 130; whole Simple CNN steps 6.5% faster (one thread, A/B within one process).
  // Also when B fits in L2 (1 MiB) and C has <= 256 rows, taken as one row block (MC 256), so
  // that each B panel comes from L2 once and serves every row panel from L1: MLP steps on one
  // thread b=16 +2.9%, b=1024 +1.8%, two concurrent trials b=16..1024 +1.4-3.6% (in-process
  // A/B, faster in 23-35 of 40 rounds); one trial on 2 threads b=1024 -1.5%. Larger B (from
  // L3, once per row block) or m was even or slower in whole steps.
  const bool direct_b =
      !direct_a && (m <= kDirectBMaxM ||
                    (m <= kMcInPlaceB && k * n * int64_t{sizeof(float)} <= kInPlaceBMaxBytes));
  const int64_t mc_max = direct_b ? kMcInPlaceB
                         : sink && !direct_a && one_row_block_for_sink(m, n, kb) ? round_up(m, kMr)
                                                                                   : kMc;
  float* const wa = ws.a(part);
  float* const wb = ws.b(part);
  if ((!pa && ws.a_floats(part) < round_up(std::min(m, mc_max), kMr) * kb) ||
      ws.b_floats(part) < round_up(std::min(n, kNc), kNr) * kb) {
    std::fprintf(stderr, "sgemm: workspace not reserved for %lld x %lld x %lld (internal bug)\n",
                 static_cast<long long>(m), static_cast<long long>(n), static_cast<long long>(k));
    std::abort();
  }
  auto b_panel = [&](int64_t pc, int64_t kc, int64_t jc, int64_t jr, int64_t cols) {
    if (!direct_b) return BPanel{wb + jr * kc, kNr, BPanel::Layout::Packed};
    const int64_t j = jc + jr;
    if (cols < kNr) {
      pack_b<kNr>(tb, b, ldb, pc, kc, j, cols, wb);
      return BPanel{wb, kNr, BPanel::Layout::Packed};
    }
    return tb == Trans::No ? BPanel{b + pc + j * ldb, ldb, BPanel::Layout::InPlaceCols}
                           : BPanel{b + j + pc * ldb, ldb, BPanel::Layout::InPlaceRows};
  };
  for (int64_t jc = 0; jc < n; jc += kNc) {
    const int64_t nc = std::min(kNc, n - jc);
    for (int64_t pc = 0; pc < k; pc += kb) {
      const int64_t kc = std::min(kb, k - pc);
      const bool acc = accumulate || pc > 0;
      TileSink* const last = pc + kc >= k ? sink : nullptr;
      if (!direct_b) pack_b<kNr>(tb, b, ldb, pc, kc, jc, nc, wb);
      // A large A read in place streams by sub-blocks across all rows (gemm_streamed_a.h), its
      // unused packing buffer holding the partial sums.
      if (direct_a && streams_a(m, k, nc, kNr, ws.a_floats(part))) {
        streamed_a_block<kNr>(m, nc, kc, a + pc * lda, lda, wb, wa, c + jc * ldc, ldc, acc, last,
                              i_off, j_off + jc, part);
        continue;
      }
      for (int64_t ic = 0; ic < m; ic += mc_max) {
        const int64_t mc = std::min(mc_max, m - ic);
        if (direct_a) {  // A panel outer: read from memory once, again from L2 for the next jr
          for (int64_t ir = 0; ir < mc; ir += kMr)
            for (int64_t jr = 0; jr < nc; jr += kNr)
              tile_kernel<kNr>(kc, a + (ic + ir) + pc * lda, lda, false,
                               BPanel{wb + jr * kc, kNr, BPanel::Layout::Packed},
                               c + (ic + ir) + (jc + jr) * ldc, ldc, std::min(kMr, mc - ir),
                               std::min(kNr, nc - jr), acc, last, i_off + ic + ir,
                               j_off + jc + jr, part);
          continue;
        }
        const float* ap = wa;  // pre-packed (i_off is the part's first row), or packed now
        if (pa)
          ap = pa->panels(pc, kc, i_off + ic);
        else
          pack_a(ta, a, lda, ic, mc, pc, kc, wa);
        // The sink's interleaved update (its full tiles: no partial sums in C, A packed, the
        // depth of gemm_blocking.h's kInterleaveMaxDepth or a copy) for the full row panels;
        // the rest of the tiles through tile_kernel and the sink's tile().
        InterleavedUpdate* const inter = last && !acc ? last->interleaved() : nullptr;
        const int64_t inter_rows =
            inter && (kc <= kInterleaveMaxDepth || inter->copies()) ? mc / kMr * kMr : 0;
        for (int64_t jr = 0; jr < nc; jr += kNr) {
          const int64_t cols = std::min(kNr, nc - jr);
          const BPanel bp = b_panel(pc, kc, jc, jr, cols);
          if (inter_rows > 0)
            interleaved_panel<kNr>(*inter, part, kc, ap, inter_rows, bp, cols, i_off + ic,
                                   j_off + jc + jr);
          for (int64_t ir = inter_rows; ir < mc; ir += kMr)
            tile_kernel<kNr>(kc, ap + ir * kc, kMr, true, bp, c + (ic + ir) + (jc + jr) * ldc,
                             ldc, std::min(kMr, mc - ir), cols, acc, last, i_off + ic + ir,
                             j_off + jc + jr, part);
        }
      }
    }
  }
}

}  // namespace

bool sgemm_packs_a(Trans ta, int64_t n) { return ta == Trans::Yes || n > kDirectAMaxN; }

void sgemm_tiles(Trans ta, Trans tb, int64_t m, int64_t n, int64_t k, const float* a,
                 int64_t lda, const PackedA* pa, const float* b, int64_t ldb, float* c,
                 int64_t ldc, bool accumulate, GemmWorkspace& ws, TileSink* sink, int64_t i_off,
                 int64_t j_off, int part) {
  // A 32 x 8 tile when n is small and 8 divides it better than 12 (batch 16: 16 columns, not
  // 24 with a third of the FMAs on padding); 32 x 12 otherwise (more FMAs per byte of A from L2).
  const int64_t sink_nr = sink_tile_width(sink != nullptr, m, n, k);
  if (sink_nr == 4)
    sgemm_blocked<4>(ta, tb, m, n, k, a, lda, pa, b, ldb, c, ldc, accumulate, ws, sink, i_off,
                     j_off, part);
  else if (sink_nr == 8 || (n < kSmallN && round_up(n, 8) < round_up(n, 12)))
    sgemm_blocked<8>(ta, tb, m, n, k, a, lda, pa, b, ldb, c, ldc, accumulate, ws, sink, i_off,
                     j_off, part);
  else
    sgemm_blocked<12>(ta, tb, m, n, k, a, lda, pa, b, ldb, c, ldc, accumulate, ws, sink, i_off,
                      j_off, part);
}

#endif

}  // namespace kp::trainer_detail
