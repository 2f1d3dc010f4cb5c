#pragma once
// The gradient sources the optimizer's update reads (update_lanes.h): an array, the outer product
// dy x_j of one column at batch 1, or at a small batch column j of dy x^T formed on the way.
// at(i) / at(i, lanes): the gradient of element i (16 of them from i, masked). Internal to
// kp_trainer.
#include <cstdint>

#ifdef __AVX512F__
#include <immintrin.h>
#endif

namespace kp::trainer_detail {

struct ArrayGrad {
  const float* g;
  float at(int64_t i) const { return g[i]; }
#ifdef __AVX512F__
  __m512 at(int64_t i, __mmask16 m) const { return _mm512_maskz_loadu_ps(m, g + i); }
#endif
};
struct OuterGrad {
  const float* dy;
  float xj;
  float at(int64_t i) const { return dy[i] * xj; }
#ifdef __AVX512F__
  __m512 at(int64_t i, __mmask16 m) const {
    return _mm512_mul_ps(_mm512_maskz_loadu_ps(m, dy + i), _mm512_set1_ps(xj));
  }
#endif
};

#ifdef __AVX512F__
// Column j of dy x^T at a small batch: each element one FMA chain from zero over the samples in
// order, the chain the GEMM's kernel forms for it (a depth of <= 320 is one block), bit for bit.
struct BatchOuterGrad {
  const float* dy;  // rows x batch, column-major
  const float* xj;  // x + j, x being cols x batch, column-major
  int64_t batch, rows, cols;
  __m512 at(int64_t i, __mmask16 m) const {
    __m512 g = _mm512_setzero_ps();
    for (int64_t s = 0; s < batch; ++s)
      g = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, dy + i + s * rows),
                          _mm512_set1_ps(xj[s * cols]), g);
    return g;
  }
};
#endif

}  // namespace kp::trainer_detail
