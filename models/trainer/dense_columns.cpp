#include "models/trainer/dense_columns.h"

#include <cstdio>
#include <cstdlib>

#include "models/trainer/gemm.h"
#include "models/trainer/gemm_pack.h"
#include "models/trainer/width_dispatch.h"

#ifdef __AVX512F__
// GCC 12's own intrinsics (_mm512_undefined_ps inside the masked loads) trip -Wuninitialized.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#endif

namespace kp::trainer_detail {

bool input_grad_by_columns(int64_t rows, int64_t cols, int64_t batch) {
  return sgemm_available() && batch >= 2 && batch <= kColumnGradMaxBatch &&
         rows * cols >= kColumnGradMinWeights &&
         rows * batch * int64_t{sizeof(float)} <= kColumnGradMaxDyBytes;
}

#ifdef __AVX512F__
namespace {

template <int kB>
void columns(const float* w, int64_t rows, int64_t lo, int64_t hi, const float* dy, float* dx,
             int64_t ldx) {
  for (int64_t j = lo; j < hi; ++j) {
    const float* const wj = w + j * rows;
    __m512 even[kB], odd[kB];
    for (int s = 0; s < kB; ++s) even[s] = odd[s] = _mm512_setzero_ps();
    int64_t i = 0;
    for (; i + 32 <= rows; i += 32) {
      const __m512 w0 = _mm512_loadu_ps(wj + i), w1 = _mm512_loadu_ps(wj + i + 16);
      for (int s = 0; s < kB; ++s) {
        even[s] = _mm512_fmadd_ps(w0, _mm512_loadu_ps(dy + i + s * rows), even[s]);
        odd[s] = _mm512_fmadd_ps(w1, _mm512_loadu_ps(dy + i + 16 + s * rows), odd[s]);
      }
    }
    for (; i < rows; i += 16) {  // a tail of 1-31 rows, in the even chain
      const __mmask16 m = lanes(rows - i);
      const __m512 w0 = _mm512_maskz_loadu_ps(m, wj + i);
      for (int s = 0; s < kB; ++s)
        even[s] = _mm512_fmadd_ps(w0, _mm512_maskz_loadu_ps(m, dy + i + s * rows), even[s]);
    }
    for (int s = 0; s < kB; ++s)
      dx[j + s * ldx] = _mm512_reduce_add_ps(_mm512_add_ps(even[s], odd[s]));
  }
}

}  // namespace

void input_grad_columns(const float* w, int64_t rows, int64_t lo, int64_t hi, const float* dy,
                        int64_t batch, float* dx, int64_t ldx) {
  with_width<2, 8>(batch, "input_grad_columns", [&](auto b) {
    columns<decltype(b)::value>(w, rows, lo, hi, dy, dx, ldx);
  });
}
#else
void input_grad_columns(const float*, int64_t, int64_t, int64_t, const float*, int64_t, float*,
                        int64_t) {
  std::fprintf(stderr, "input_grad_columns: no AVX-512 in this build (internal bug)\n");
  std::abort();
}
#endif

}  // namespace kp::trainer_detail
