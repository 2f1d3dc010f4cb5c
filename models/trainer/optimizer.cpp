#include "models/trainer/optimizer.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "models/trainer/column_panels.h"
#include "models/trainer/gemm.h"
#include "models/trainer/gemm_pack.h"
#include "models/trainer/grad_sources.h"
#include "models/trainer/matvec_columns.h"
#include "models/trainer/matvec_parts.h"
#include "models/trainer/prefetch.h"

#ifdef __AVX512F__
// GCC 12 flags its own masked-load intrinsics (_mm512_undefined_ps) as uninitialised.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#endif

namespace kp {

double learning_rate_at(const OptimizerSpec& s, int64_t step) {
  if (s.warmup_steps > 0 && step < s.warmup_steps)
    return s.learning_rate * double(step + 1) / double(s.warmup_steps);
  if (s.schedule == LrSchedule::LinearDecay && s.decay_steps > 0) {
    const double frac = std::min(1.0, double(step) / double(s.decay_steps));
    return s.learning_rate * (1.0 - (1.0 - s.final_lr_factor) * frac);
  }
  return s.learning_rate;
}

Optimizer::Optimizer(const OptimizerSpec& spec, int64_t num_params,
                     trainer_detail::WorkerPool* pool)
    : m_spec(spec),
      m_n(num_params),
      m_velocity(spec.kind == OptimizerKind::Sgd ? 0 : static_cast<size_t>(num_params), 0.0f),
      m_pool(pool) {}

namespace {

using trainer_detail::ArrayGrad;
using trainer_detail::OuterGrad;
#ifdef __AVX512F__
using trainer_detail::BatchOuterGrad;
#endif

struct Coeffs {
  OptimizerKind kind;
  float lr, wd, mu;
  int64_t prefetch_floats;  // how far ahead the update prefetches (0: not at all)
};

// On a trial of one thread, the update prefetches the weights and velocities this many floats
// (4 KiB) ahead. The MLP's 2.15 MB of them exceed the 2 MiB L2, and the fused GEMM update walks
// them tile by tile, 12 columns of 32 rows each, 1 KiB apart, which the hardware prefetchers do
// not follow; 4 KiB ahead is four columns on, in the same rows: this tile's later columns or the
// next column panel's. In-process A/B against none, one thread: MLP b=16 +12% (faster in 60 of
// 60 rounds; 2 KiB +9%, 52/60; 8 KiB as 4; 12 KiB -3%), b=4 +8% (57/60), b=1 +1.8% (36/60);
// b=128, b=1024 and the Simple CNN within the noise. Alternating bench runs, b=16: +14% (11 of
// 14 pairs). Not on several threads, where each core's share fits its L2: b=4 -2.8% (10/60),
// b=16 +3.2% (57/80).
constexpr int64_t kUpdatePrefetchFloats = 1024;

#ifdef __AVX512F__
// Coeffs broadcast to the lanes, once per loop.
struct LaneCoeffs {
  explicit LaneCoeffs(const Coeffs& k)
      : lr(_mm512_set1_ps(k.lr)), wd(_mm512_set1_ps(k.wd)), mu(_mm512_set1_ps(k.mu)),
        prefetch_floats(k.prefetch_floats) {}
  __m512 lr, wd, mu;
  int64_t prefetch_floats;
};

// The update of the 16 parameters (masked by m) at w and v with gradient g; returns the new w.
template <OptimizerKind kKind>
inline __m512 update_vector(const LaneCoeffs& k, float* w, float* v, __mmask16 m, __m512 g,
                            __m512& sq) {
  if (k.prefetch_floats > 0) {
    trainer_detail::prefetch(w, k.prefetch_floats);
    if constexpr (kKind != OptimizerKind::Sgd) trainer_detail::prefetch(v, k.prefetch_floats);
  }
  sq = _mm512_fmadd_ps(g, g, sq);
  __m512 wv = _mm512_maskz_loadu_ps(m, w);
  const __m512 gi = _mm512_fmadd_ps(k.wd, wv, g);
  if constexpr (kKind == OptimizerKind::Sgd) {
    wv = _mm512_fnmadd_ps(k.lr, gi, wv);
  } else {
    __m512 vv = _mm512_fmadd_ps(k.mu, _mm512_maskz_loadu_ps(m, v), gi);
    _mm512_mask_storeu_ps(v, m, vv);
    if constexpr (kKind == OptimizerKind::Nesterov)
      vv = _mm512_fmadd_ps(k.mu, vv, gi);
    wv = _mm512_fnmadd_ps(k.lr, vv, wv);
  }
  _mm512_mask_storeu_ps(w, m, wv);
  return wv;
}

// Updates parameters [0, n) with gradient grad.at(i), adding grad^2 to the lanes of sq, and
// copies the new weights to `copy` if not null (64-byte aligned). Explicit AVX-512 (GCC did not
// vectorise the generic loop with the norm folded in); masked tails keep the arithmetic of an
// element independent of where it sits in the array. The copy (a layer's panels for its next
// forward, which the caches will not hold until then) goes by non-temporal stores: plain
// stores first read each line of it from memory. The Simple CNN at M=128 (fc1's 12.8 MB), whole
// steps on one thread, in-process A/B against no copy: plain stores +0.2% (faster in 9 of 16
// rounds), non-temporal +1.9% (13 of 16).
template <OptimizerKind kKind, class Grad>
void update_lanes(const Coeffs& coeffs, float* w, float* v, int64_t n, const Grad& grad,
                  __m512& sq, float* copy = nullptr) {
  const LaneCoeffs k(coeffs);
  __m512 acc = sq;  // a local: in the caller's memory every store through w could alias it
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = trainer_detail::lanes(n - i);
    const __m512 wv = update_vector<kKind>(k, w + i, kKind == OptimizerKind::Sgd ? nullptr : v + i,
                                           m, grad.at(i, m), acc);
    if (!copy) continue;
    if (m == 0xFFFF)
      _mm512_stream_ps(copy + i, wv);
    else
      _mm512_mask_store_ps(copy + i, m, wv);
  }
  sq = acc;
}

// Batch 1, columns [lo, hi) of a deferred block that also asks for the next step's product
// (d.next_x; at most kColumnOrderMaxRows rows): each column updated as update() does, its new
// weights multiplied by next_x on the way into `sums` in registers, each sum one FMA chain over
// the columns in order as the forward's (matvec_columns.h). Returns the squared norm, summed per
// column in order, as apart.
template <OptimizerKind kKind>
double update_columns_and_product(const Coeffs& coeffs, float* w, float* v,
                                  const DeferredGrad& d, int64_t lo, int64_t hi, float* sums) {
  if (d.rows > trainer_detail::kColumnOrderMaxRows) std::abort();  // arm_next_product refuses
  const LaneCoeffs k(coeffs);
  const int64_t rows = d.rows;  // locals: the stores through w could alias d's fields
  const float *const dy = d.dy, *const x = d.x;
  double total = 0;
  __m512 sq = _mm512_setzero_ps();
  trainer_detail::one_column_panel(
      rows, lo, hi, d.next_x, sums,
      [&k, &sq, w, v, rows, dy, x](int64_t j, int64_t i, __mmask16 m) {
        const int64_t at = j * rows + i;
        const __m512 g = _mm512_mul_ps(_mm512_maskz_loadu_ps(m, dy + i), _mm512_set1_ps(x[j]));
        return update_vector<kKind>(k, w + at, kKind == OptimizerKind::Sgd ? nullptr : v + at, m,
                                    g, sq);
      },
      [&](int64_t) {
        total += double(_mm512_reduce_add_ps(sq));
        sq = _mm512_setzero_ps();
      });
  return total;
}

// Returns sum grad^2 over [0, n).
template <OptimizerKind kKind, class Grad>
double update(const Coeffs& k, float* w, float* v, int64_t n, const Grad& grad) {
  __m512 sq = _mm512_setzero_ps();
  update_lanes<kKind>(k, w, v, n, grad, sq);
  return double(_mm512_reduce_add_ps(sq));
}

// The epilogue of the deferred weight-gradient GEMM: each finished tile of dy x^T is applied to
// the weights and velocities at its place, column by column, and the new weights copied to the
// layer's forward panels if given (DeferredGrad::packed). The squared norm is summed per part of
// a GEMM split across threads (one cache line each), then over parts in order.
template <OptimizerKind kKind>
class UpdateSink final : public trainer_detail::TileSink {
 public:
  UpdateSink(const Coeffs& k, float* w, float* v, int64_t rows,
             trainer_detail::PackedA* packed = nullptr)
      : m_k(k), m_w(w), m_v(v), m_rows(rows), m_packed(packed) {}
  void tile(int64_t i0, int64_t j0, int64_t rows, int64_t cols, const float* t, int64_t ld,
            int part) override {
    // Internal bugs, failing loudly: a part out of range, a tile across panels.
    if (part < 0 || part >= kMaxTrialThreads || (m_packed && i0 % trainer_detail::kMr))
      std::abort();
    __m512 sq = _mm512_setzero_ps();
    for (int64_t j = 0; j < cols; ++j) {
      const int64_t at = i0 + (j0 + j) * m_rows;
      update_lanes<kKind>(m_k, m_w + at, m_v ? m_v + at : nullptr, rows, ArrayGrad{t + j * ld},
                          sq, m_packed ? m_packed->column(i0, j0 + j) : nullptr);
    }
    // The copy's non-temporal stores are ordered before whatever follows, such as the pool's
    // hand-over to the thread whose forward reads them.
    if (m_packed) _mm_sfence();
    // The tile's squares summed in float lanes (<= 24 terms each), then in double: summed in the
    // lanes over all tiles (2^16 terms a lane for 2^20 weights), a 1024 x 1024 layer's squared
    // norm erred by up to 1.2e-5 relative (FusedUpdateOfALargeMatrixMatchesThePlainPath).
    m_sq[part].s += double(_mm512_reduce_add_ps(sq));
  }
  bool order_free() const override { return false; }
  double sq() const {
    double s = 0;
    for (const Part& p : m_sq) s += p.s;
    return s;
  }

 private:
  struct alignas(64) Part {  // one cache line per part: parts run on different threads
    double s = 0;
  };
  Coeffs m_k;
  float *m_w, *m_v;
  int64_t m_rows;
  trainer_detail::PackedA* m_packed;
  Part m_sq[kMaxTrialThreads];
};

// At small batches (matvec_parts.h) by the forward's column parts, on the same threads: each
// part's columns of dy x^T as a product of their own, the squared norm summed per part, then
// over the parts in order. The weights and velocities get the same values.
template <OptimizerKind kKind>
double update_gemm_parts(const Coeffs& k, float* w, float* v, const DeferredGrad& d,
                         trainer_detail::WorkerPool* pool) {
  return trainer_detail::sum_over_matvec_parts(
      pool, d.cols, d.rows * d.cols, [&](int, int64_t lo, int64_t hi, int t) {
        const int64_t at = lo * d.rows;
        UpdateSink<kKind> sink(k, w + at, v ? v + at : nullptr, d.rows);
        trainer_detail::sgemm(trainer_detail::Trans::No, trainer_detail::Trans::Yes, d.rows,
                              hi - lo, d.batch, d.dy, d.rows, d.x + lo, d.cols, d.grad + at,
                              d.rows, false, *d.ws, &sink, t);
        return sink.sq();
      });
}

// A matrix of >= 2^20 weights at a batch whose dy fits in L1 (32 KiB: 1024 rows x 8 samples)
// is updated column by column, each column's gradient formed from dy (BatchOuterGrad) on the
// way: the weights and velocities stream from memory in order, as at batch 1, where the GEMM's
// tiles walk 4 columns at once (gemm.cpp, sink_tile_width). Simple CNN fc1 (1024 x 3136), steps
// on one thread, in-process A/B against the tiles: M=2 +39%, 4 +16% (20 of 20 rounds each), 8
// +6% (17/20); 16 (dy 64 KiB, read from L2 for every column) -17%. The same values; the squared
// norm is summed per column, as at batch 1.
inline bool update_by_columns(const DeferredGrad& d) {
  return d.rows * d.cols >= (int64_t{1} << 20) &&
         d.rows * d.batch * int64_t{sizeof(float)} <= (int64_t{32} << 10);
}

// The deferred GEMM's update, the new weights also written to d.packed if asked: by the tiles'
// sink, or packed from the weights after an update that goes another way.
template <OptimizerKind kKind>
double update_gemm(const Coeffs& k, float* w, float* v, const DeferredGrad& d,
                   trainer_detail::WorkerPool* pool) {
  if (d.packed && (update_by_columns(d) || trainer_detail::by_column_parts(d.batch, d.rows * d.cols))) {
    DeferredGrad plain = d;
    plain.packed = nullptr;
    const double sq = update_gemm<kKind>(k, w, v, plain, pool);
    d.packed->pack(trainer_detail::Trans::No, d.rows, d.cols, w, d.rows, pool);
    return sq;
  }
  if (update_by_columns(d))
    return trainer_detail::sum_over_matvec_parts(
        pool, d.cols, d.rows * d.cols, [&](int, int64_t lo, int64_t hi, int) {
          double sq = 0;
          for (int64_t j = lo; j < hi; ++j)
            sq += update<kKind>(k, w + j * d.rows, v ? v + j * d.rows : nullptr, d.rows,
                                BatchOuterGrad{d.dy, d.x + j, d.batch, d.rows, d.cols});
          return sq;
        });
  if (trainer_detail::by_column_parts(d.batch, d.rows * d.cols))
    return update_gemm_parts<kKind>(k, w, v, d, pool);
  UpdateSink<kKind> sink(k, w, v, d.rows, d.packed);
  trainer_detail::sgemm(trainer_detail::Trans::No, trainer_detail::Trans::Yes, d.rows, d.cols,
                        d.batch, d.dy, d.rows, d.x, d.cols, d.grad, d.rows, false, *d.ws, &sink);
  return sink.sq();
}
#else
template <OptimizerKind kKind, class Grad>
double update(const Coeffs& k, float* w, float* v, int64_t n, const Grad& grad) {
  double sq = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float g = grad.at(i);
    sq += double(g) * g;
    const float gi = g + k.wd * w[i];
    if constexpr (kKind == OptimizerKind::Sgd) {
      w[i] -= k.lr * gi;
    } else {
      v[i] = k.mu * v[i] + gi;
      w[i] -= k.lr * (kKind == OptimizerKind::Nesterov ? gi + k.mu * v[i] : v[i]);
    }
  }
  return sq;
}
#endif

#ifdef __AVX512F__
double update_and_product(const Coeffs& k, float* w, float* v, const DeferredGrad& d, int64_t lo,
                          int64_t hi, float* sums) {
  switch (k.kind) {
    case OptimizerKind::Sgd:
      return update_columns_and_product<OptimizerKind::Sgd>(k, w, v, d, lo, hi, sums);
    case OptimizerKind::Momentum:
      return update_columns_and_product<OptimizerKind::Momentum>(k, w, v, d, lo, hi, sums);
    case OptimizerKind::Nesterov:
      return update_columns_and_product<OptimizerKind::Nesterov>(k, w, v, d, lo, hi, sums);
  }
  return 0;
}
#else
template <OptimizerKind kKind>
double update_gemm(const Coeffs&, float*, float*, const DeferredGrad&,
                   trainer_detail::WorkerPool*) {
  throw std::logic_error("optimizer: a deferred GEMM gradient without the AVX-512 sgemm");
}
double update_and_product(const Coeffs&, float*, float*, const DeferredGrad&, int64_t, int64_t,
                          float*) {
  throw std::logic_error("optimizer: the next product asked for without AVX-512");
}
#endif

template <class Grad>
double update_kind(const Coeffs& k, float* w, float* v, int64_t n, const Grad& grad) {
  switch (k.kind) {
    case OptimizerKind::Sgd: return update<OptimizerKind::Sgd>(k, w, v, n, grad);
    case OptimizerKind::Momentum: return update<OptimizerKind::Momentum>(k, w, v, n, grad);
    case OptimizerKind::Nesterov: return update<OptimizerKind::Nesterov>(k, w, v, n, grad);
  }
  return 0;
}

// The deferred weight gradient of one block: the outer product at batch 1, else the GEMM. At
// batch 1 by the forward's column parts (matvec_parts.h), on the same threads: the squared norm
// summed per column, over each part's columns in order, then over the parts in order.
double update_deferred(const Coeffs& k, float* w, float* v, const DeferredGrad& d,
                       trainer_detail::WorkerPool* pool) {
  if (d.batch > 1) {
    switch (k.kind) {
      case OptimizerKind::Sgd: return update_gemm<OptimizerKind::Sgd>(k, w, v, d, pool);
      case OptimizerKind::Momentum: return update_gemm<OptimizerKind::Momentum>(k, w, v, d, pool);
      case OptimizerKind::Nesterov: return update_gemm<OptimizerKind::Nesterov>(k, w, v, d, pool);
    }
    return 0;
  }
  return trainer_detail::sum_over_matvec_parts(
      trainer_detail::batch_one_pool(pool, d.rows * d.cols), d.cols, d.rows * d.cols,
      [&](int p, int64_t lo, int64_t hi, int) {
        if (d.next_x) return update_and_product(k, w, v, d, lo, hi, d.next_sums + p * d.rows);
        double sq = 0;
        for (int64_t j = lo; j < hi; ++j)
          sq += update_kind(k, w + j * d.rows, v ? v + j * d.rows : nullptr, d.rows,
                            OuterGrad{d.dy, d.x[j]});
        return sq;
      });
}

}  // namespace

double Optimizer::step(float* w, const float* g, int64_t step, const DeferredGrad* deferred,
                       size_t n_deferred) {
  const Coeffs k{m_spec.kind, static_cast<float>(learning_rate_at(m_spec, step)),
                 static_cast<float>(m_spec.weight_decay), static_cast<float>(m_spec.momentum),
                 m_pool && m_pool->threads() > 1 ? 0 : kUpdatePrefetchFloats};
  float* v = m_velocity.empty() ? nullptr : m_velocity.data();
  auto at = [v](int64_t off) { return v ? v + off : nullptr; };
  double sq = 0;
  int64_t pos = 0;
  for (size_t b = 0; b < n_deferred; ++b) {
    const DeferredGrad& d = deferred[b];
    sq += update_kind(k, w + pos, at(pos), d.offset - pos, ArrayGrad{g + pos});
    sq += update_deferred(k, w + d.offset, at(d.offset), d, m_pool);
    pos = d.offset + d.rows * d.cols;
  }
  sq += update_kind(k, w + pos, at(pos), m_n - pos, ArrayGrad{g + pos});
  return sq;
}

}  // namespace kp
