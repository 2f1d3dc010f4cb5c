// The deferred dense weight gradient's GEMM with the optimizer's update as its epilogue
// (update_gemm.h).
// GCC 12 flags its own masked-load intrinsics (_mm512_undefined_ps) as uninitialised.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "models/trainer/update_gemm.h"

#include <cstdlib>
#include <stdexcept>

#include "models/trainer/gemm.h"
#include "models/trainer/grad_sources.h"
#include "models/trainer/interleaved_update.h"
#include "models/trainer/matvec_parts.h"
#include "models/trainer/update_lanes.h"

namespace kp::trainer_detail {

#ifdef __AVX512F__
namespace {

// The epilogue of the deferred weight-gradient GEMM: each finished tile of dy x^T is applied to
// the weights and velocities at its place, column by column, and the new weights copied to the
// layer's forward panels if given (DeferredGrad::packed). The squared norm is summed per part of
// a GEMM split across threads (one cache line each), then over parts in order.
template <OptimizerKind kKind>
class UpdateSink final : public TileSink {
 public:
  UpdateSink(const Coeffs& k, float* w, float* v, int64_t rows, PackedA* packed = nullptr)
      : m_k(k),
        m_w(w),
        m_v(v),
        m_rows(rows),
        m_packed(packed),
        m_inter(k, w, v, rows, m_parts, packed) {}
  void tile(int64_t i0, int64_t j0, int64_t rows, int64_t cols, const float* t, int64_t ld,
            int part) override {
    // Internal bugs, failing loudly: a part out of range, a tile across panels.
    if (part < 0 || part >= kMaxTrialThreads || (m_packed && i0 % kMr)) std::abort();
    m_inter.settle(part);  // a tile the kernel left waiting comes first
    if (rows == kMr && !m_packed) {
      if (m_k.norm) return full_tile<true>(i0, j0, cols, t, ld, part);
      return full_tile<false>(i0, j0, cols, t, ld, part);
    }
    __m512 sq = _mm512_setzero_ps();
    float* copy = nullptr;  // the panels' column for column j0 + j, if copying
    int64_t run = 0;        // columns from there on in the same depth block
    for (int64_t j = 0; j < cols; ++j, copy += copy ? kMr : 0, --run) {
      if (m_packed && run == 0) copy = m_packed->column(i0, j0 + j, &run);
      const int64_t at = i0 + (j0 + j) * m_rows;
      update_lanes<kKind>(m_k, m_w + at, m_v ? m_v + at : nullptr, rows, ArrayGrad{t + j * ld},
                          sq, copy);
    }
    // The tile's squares summed in float lanes (<= 24 terms each), then in double: summed in the
    // lanes over all tiles (2^16 terms a lane for 2^20 weights), a 1024 x 1024 layer's squared
    // norm erred by up to 1.2e-5 relative (FusedUpdateOfALargeMatrixMatchesThePlainPath).
    m_parts[part].sq += double(_mm512_reduce_add_ps(sq));
  }
  // A full tile of kMr rows without a copy (the MLP's layers, deeper than gemm_blocking.h's
  // kInterleaveMaxDepth; shallower ones are interleaved with the product, and come here only
  // with partial sums in C or A read in place): each column's two vectors in a straight run,
  // the coefficients broadcast once a tile. The loop above spends ~40
  // instructions a column on its set-up (coefficients, the copy's column, a mask per vector)
  // for ~25 a vector, and at batch 16 the update was bound by them, not by memory: with every
  // tile sent to the same 32 x 12 weights (in L1) a step took 3% less, without the update 24%
  // less. MLP steps on one thread, in-process A/B against that loop: b=4 +23%, b=16 +10.8%,
  // b=64 +2.7%, b=128 +2.3% (faster in 20 of 20, 30 of 30, 20/20, 18/20 rounds). Each element
  // gets the same operations and sq its terms in the same order: the same values. Without the
  // optimizer's prefetch 4 KiB ahead (the MLP's weights come from L2 and L3, and the hardware
  // keeps up): b=16 +1.4% and +2.0% (faster in 24 of 30 and 29 of 40 rounds), b=4 +1% (33/40),
  // b=64, 128 and 1024 even.
  template <bool kNorm>
  void full_tile(int64_t i0, int64_t j0, int64_t cols, const float* t, int64_t ld, int part) {
    const LaneCoeffs k = m_inter.lanes();  // without a copy: no software prefetch
    const int64_t step = m_rows;           // a local: a store through w could alias the member
    float* const w = m_w + i0 + j0 * step;
    float* const v = m_v ? m_v + i0 + j0 * step : nullptr;
    __m512 sq = _mm512_setzero_ps();
    for (int64_t j = 0; j < cols; ++j)
      InterleavedUpdate::column<kKind, kNorm>(k, t, ld, w, v, step, j, sq);
    m_parts[part].sq += double(_mm512_reduce_add_ps(sq));
  }
  // The product interleaves the update with itself (interleaved_update.h; for which tiles:
  // gemm.cpp's sgemm_blocked and gemm_blocking.h's kInterleaveMaxDepth).
  InterleavedUpdate* interleaved() override { return &m_inter; }
  bool order_free() const override { return false; }
  // The part's waiting tile applied; the copy's non-temporal stores ordered before whatever
  // follows, such as the pool's hand-over to a thread whose forward reads them: once a part,
  // not once a tile (a fence a tile cost 1.0% of a Simple CNN step, faster without in 15 of 20
  // in-process rounds).
  void flush(int part) override {
    m_inter.settle(part);
    if (m_packed) _mm_sfence();
  }
  // The squared norm, once every part has been flushed (an internal bug otherwise: a waiting
  // tile would never be applied).
  double sq() const {
    double s = 0;
    for (const InterleavedUpdate::Part& p : m_parts) {
      if (p.cols != 0) std::abort();
      s += p.sq;
    }
    return s;
  }

 private:
  Coeffs m_k;
  float *m_w, *m_v;
  int64_t m_rows;
  PackedA* m_packed;
  InterleavedUpdate::Part m_parts[kMaxTrialThreads];  // a part's squared norm, waiting tile
  InterleavedUpdate m_inter;
};

// At small batches (matvec_parts.h) by the forward's column parts, on the same threads: each
// part's columns of dy x^T as a product of their own, the squared norm summed per part, then
// over the parts in order. The weights and velocities get the same values.
template <OptimizerKind kKind>
double update_gemm_parts(const Coeffs& k, float* w, float* v, const DeferredGrad& d,
                         WorkerPool* pool) {
  return sum_over_matvec_parts(
      pool, d.cols, d.rows * d.cols, [&](int, int64_t lo, int64_t hi, int t) {
        const int64_t at = lo * d.rows;
        UpdateSink<kKind> sink(k, w + at, v ? v + at : nullptr, d.rows);
        sgemm(Trans::No, Trans::Yes, d.rows,
                              hi - lo, d.batch, d.dy, d.rows, d.x + lo, d.cols, d.grad + at,
                              d.rows, false, *d.ws, &sink, t);
        return sink.sq();
      });
}

// A matrix of at least this many weights (4 MiB; the Simple CNN's fc1) streams its weights and
// velocities from memory rather than cache, which both update paths below are tuned for.
constexpr int64_t kFromMemoryWeights = int64_t{1} << 20;

// A matrix of >= kFromMemoryWeights weights at a batch whose dy fits in L1 (32 KiB: 1024 rows x
// 8 samples) is updated column by column, each column's gradient formed from dy
// (BatchOuterGrad) on the way: the weights and velocities stream from memory in order, as at
// batch 1, where the GEMM's tiles walk 4 columns at once (gemm_blocking.h, sink_tile_width).
// Simple CNN fc1 (1024 x 3136), steps on one thread, in-process A/B against the tiles: M=2 +39%,
// 4 +16% (20 of 20 rounds each), 8 +6% (17/20); 16 (dy 64 KiB, read from L2 for every column)
// -17%. The same values; the squared norm is summed per column, as at batch 1.
inline bool update_by_columns(const DeferredGrad& d) {
  return d.rows * d.cols >= kFromMemoryWeights &&
         d.rows * d.batch * int64_t{sizeof(float)} <= (int64_t{32} << 10);
}

// The coefficients for the tiles' sink. A matrix of >= kFromMemoryWeights weights is updated
// tile by tile down each strip of columns (its product takes all rows as one row block,
// gemm_blocking.h), so the update prefetches the next tile's rows, 32 floats on, instead of the
// optimizer's 4 KiB on (the same rows of a column the tile itself reaches a few vectors later).
// In-process A/B, one thread: Simple CNN M=128 +1.5% and +1.2% (faster in 23 and 24 of 24
// rounds), M=32 +1.5% (13/20), M=16 +-0 (15/20). The MLP (weights from L2 and L3) keeps 4 KiB:
// 32 floats was even at b=16 (19/30) and b=128 (12/20) and -0.5% at b=4 (8/30).
inline Coeffs sink_coeffs(Coeffs k, const DeferredGrad& d) {
  if (k.prefetch_floats > 0 && d.rows * d.cols >= kFromMemoryWeights) k.prefetch_floats = kMr;
  return k;
}

// The deferred GEMM's update, the new weights also written to d.packed if asked: by the tiles'
// sink, or packed from the weights after an update that goes another way.
template <OptimizerKind kKind>
double update_gemm(const Coeffs& k, float* w, float* v, const DeferredGrad& d, WorkerPool* pool) {
  if (d.packed && (update_by_columns(d) || by_column_parts(d.batch, d.rows * d.cols))) {
    DeferredGrad plain = d;
    plain.packed = nullptr;
    const double sq = update_gemm<kKind>(k, w, v, plain, pool);
    d.packed->pack(Trans::No, d.rows, d.cols, w, d.rows, pool);
    return sq;
  }
  if (update_by_columns(d))
    return sum_over_matvec_parts(
        pool, d.cols, d.rows * d.cols, [&](int, int64_t lo, int64_t hi, int) {
          double sq = 0;
          for (int64_t j = lo; j < hi; ++j)
            sq += update<kKind>(k, w + j * d.rows, v ? v + j * d.rows : nullptr, d.rows,
                                BatchOuterGrad{d.dy, d.x + j, d.batch, d.rows, d.cols});
          return sq;
        });
  if (by_column_parts(d.batch, d.rows * d.cols))
    return update_gemm_parts<kKind>(k, w, v, d, pool);
  UpdateSink<kKind> sink(sink_coeffs(k, d), w, v, d.rows, d.packed);
  sgemm(Trans::No, Trans::Yes, d.rows, d.cols, d.batch, d.dy, d.rows, d.x, d.cols, d.grad, d.rows,
        false, *d.ws, &sink);
  return sink.sq();
}

}  // namespace

double update_gemm(const Coeffs& k, float* w, float* v, const DeferredGrad& d, WorkerPool* pool) {
  switch (k.kind) {
    case OptimizerKind::Sgd: return update_gemm<OptimizerKind::Sgd>(k, w, v, d, pool);
    case OptimizerKind::Momentum: return update_gemm<OptimizerKind::Momentum>(k, w, v, d, pool);
    case OptimizerKind::Nesterov: return update_gemm<OptimizerKind::Nesterov>(k, w, v, d, pool);
    default: std::abort();  // the Adam family updates by reference_update.h
  }
  return 0;
}
#else
double update_gemm(const Coeffs&, float*, float*, const DeferredGrad&, WorkerPool*) {
  throw std::logic_error("optimizer: a deferred GEMM gradient without the AVX-512 sgemm");
}
#endif

}  // namespace kp::trainer_detail
