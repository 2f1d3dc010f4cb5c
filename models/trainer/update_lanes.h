#pragma once
// The element-wise update of the optimizers (optimizer.h) on 16 parameters at a time, shared by
// the optimizer's plain loops and the deferred GEMM's epilogue (update_gemm.cpp). Internal to
// kp_trainer.
#include <cstdint>

#include "core/workload_spec.h"
#include "models/trainer/gemm_pack.h"
#include "models/trainer/prefetch.h"

#ifdef __AVX512F__
#include <immintrin.h>
#endif

namespace kp::trainer_detail {

// Weight decay adds wd * w to the gradient only when wd != 0, as torch.optim.SGD does (`if
// weight_decay != 0: d_p = d_p.add(p, alpha=weight_decay)`). The FMA with wd = 0 gave the same
// floats except a gradient of -0 (it returned +0, a zero's sign only) or a non-finite weight, and
// skipping it made MLP steps on one thread faster in process: b=1 +4.4%, b=4 +1.8%, b=16 +1.9%
// (faster in 20 of 20, 18/20, 29/30 rounds); b=128 and the Simple CNN even.
struct Coeffs {
  OptimizerKind kind;
  float lr, wd, mu;
  int64_t prefetch_floats;  // how far ahead the update prefetches (0: not at all)
  // Whether the squared norm of the gradient is summed (Optimizer's grad_sq_norm). The fused
  // weight-gradient tiles skip it when not (update_vector's kNorm); the other loops, bound by
  // memory, sum it anyway.
  bool norm = true;
};

#ifdef __AVX512F__
// Coeffs broadcast to the lanes, once per loop.
struct LaneCoeffs {
  explicit LaneCoeffs(const Coeffs& k)
      : lr(_mm512_set1_ps(k.lr)), wd(_mm512_set1_ps(k.wd)), mu(_mm512_set1_ps(k.mu)),
        prefetch_floats(k.prefetch_floats), decay(k.wd != 0.0f) {}
  __m512 lr, wd, mu;
  int64_t prefetch_floats;
  bool decay;  // wd != 0 (Coeffs)
};

// The update of the 16 parameters (masked by m) at w and v with gradient g; returns the new w.
// g^2 is added to sq if kNorm.
template <OptimizerKind kKind, bool kNorm = true>
__attribute__((always_inline)) inline __m512 update_vector(const LaneCoeffs& k, float* w,
                                                           float* v, __mmask16 m, __m512 g,
                                                           __m512& sq) {
  if (k.prefetch_floats > 0) {
    trainer_detail::prefetch(w, k.prefetch_floats);
    if constexpr (kKind != OptimizerKind::Sgd) trainer_detail::prefetch(v, k.prefetch_floats);
  }
  if constexpr (kNorm) sq = _mm512_fmadd_ps(g, g, sq);
  __m512 wv = _mm512_maskz_loadu_ps(m, w);
  const __m512 gi = k.decay ? _mm512_fmadd_ps(k.wd, wv, g) : g;
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

// Returns sum grad^2 over [0, n).
template <OptimizerKind kKind, class Grad>
double update(const Coeffs& k, float* w, float* v, int64_t n, const Grad& grad) {
  __m512 sq = _mm512_setzero_ps();
  update_lanes<kKind>(k, w, v, n, grad, sq);
  return double(_mm512_reduce_add_ps(sq));
}
#else
template <OptimizerKind kKind, class Grad>
double update(const Coeffs& k, float* w, float* v, int64_t n, const Grad& grad) {
  double sq = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float g = grad.at(i);
    sq += double(g) * g;
    const float gi = k.wd != 0.0f ? g + k.wd * w[i] : g;
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

}  // namespace kp::trainer_detail
