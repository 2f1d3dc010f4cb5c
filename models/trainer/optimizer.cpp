// GCC 12 flags its own masked-load intrinsics (_mm512_undefined_ps) as uninitialised.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "models/trainer/optimizer.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <stdexcept>

#include "models/trainer/column_panels.h"
#include "models/trainer/grad_sources.h"
#include "models/trainer/matvec_columns.h"
#include "models/trainer/matvec_parts.h"
#include "models/trainer/reference_update.h"
#include "models/trainer/update_gemm.h"
#include "models/trainer/update_lanes.h"

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
                     trainer_detail::WorkerPool* pool, bool grad_sq_norm, bool reference)
    : m_spec(spec),
      m_n(num_params),
      m_velocity(spec.kind == OptimizerKind::Sgd ? 0 : static_cast<size_t>(num_params), 0.0f),
      m_second(is_adam_family(spec.kind) ? static_cast<size_t>(num_params) : 0, 0.0f),
      m_pool(pool),
      m_norm(grad_sq_norm),
      m_reference(reference || is_adam_family(spec.kind)) {
  if (spec.kind == OptimizerKind::Lamb)
    throw std::invalid_argument("the trainer has no lamb update (lamb is simulated only)");
}

namespace {

using trainer_detail::ArrayGrad;
using trainer_detail::Coeffs;
using trainer_detail::OuterGrad;
using trainer_detail::update;
#ifdef __AVX512F__
using trainer_detail::LaneCoeffs;
using trainer_detail::update_vector;
#endif

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

double update_and_product(const Coeffs& k, float* w, float* v, const DeferredGrad& d, int64_t lo,
                          int64_t hi, float* sums) {
  switch (k.kind) {
    case OptimizerKind::Sgd:
      return update_columns_and_product<OptimizerKind::Sgd>(k, w, v, d, lo, hi, sums);
    case OptimizerKind::Momentum:
      return update_columns_and_product<OptimizerKind::Momentum>(k, w, v, d, lo, hi, sums);
    case OptimizerKind::Nesterov:
      return update_columns_and_product<OptimizerKind::Nesterov>(k, w, v, d, lo, hi, sums);
    default: std::abort();  // the Adam family updates by reference_update.h
  }
  return 0;
}
#else
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
    default: std::abort();  // the Adam family updates by reference_update.h
  }
  return 0;
}

// The deferred weight gradient of one block: the outer product at batch 1, else the GEMM. At
// batch 1 by the forward's column parts (matvec_parts.h), on the same threads: the squared norm
// summed per column, over each part's columns in order, then over the parts in order.
double update_deferred(const Coeffs& k, float* w, float* v, const DeferredGrad& d,
                       trainer_detail::WorkerPool* pool) {
  if (d.batch > 1) return trainer_detail::update_gemm(k, w, v, d, pool);
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
  if (m_reference) {
    if (n_deferred > 0)
      throw std::logic_error("optimizer: deferred weight gradients on the reference update");
    const double sq = trainer_detail::reference_update(
        m_spec, learning_rate_at(m_spec, step), step, w, g,
        m_velocity.empty() ? nullptr : m_velocity.data(),
        m_second.empty() ? nullptr : m_second.data(), m_n);
    return m_norm ? sq : std::numeric_limits<double>::quiet_NaN();
  }
  const Coeffs k{m_spec.kind, static_cast<float>(learning_rate_at(m_spec, step)),
                 static_cast<float>(m_spec.weight_decay), static_cast<float>(m_spec.momentum),
                 m_pool && m_pool->threads() > 1 ? 0 : kUpdatePrefetchFloats, m_norm};
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
  return m_norm ? sq : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace kp
