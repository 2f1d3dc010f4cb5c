#include "models/trainer/max_pool_window.h"

#include <cstdio>
#include <cstdlib>
#include <limits>

#ifdef __AVX512F__
#include <immintrin.h>
#endif

namespace kp::trainer_detail {

#ifdef __AVX512F__
namespace {

// One window over every channel: n positions at offs (n >= 1).
inline void one_window(const float* xn, const int32_t* offs, int n, int64_t c, bool relu,
                       float* y, int32_t* arg) {
  const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m512 low = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  for (int64_t c0 = 0; c0 < c; c0 += 16) {
    const __mmask16 m =
        c - c0 >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << static_cast<unsigned>(c - c0)) - 1);
    const int32_t base = static_cast<int32_t>(c0);
    __m512 best = low;
    // Not the old arg: that read missed to memory (3.2 MB under the Simple CNN's pool1).
    __m512i at = _mm512_add_epi32(_mm512_set1_epi32(offs[0] + base), lane);
    for (int i = 0; i < n; ++i) {
      const __m512 v = _mm512_maskz_loadu_ps(m, xn + offs[i] + base);
      const __mmask16 gt = _mm512_mask_cmp_ps_mask(m, v, best, _CMP_GT_OQ);
      best = _mm512_mask_mov_ps(best, gt, v);
      at = _mm512_mask_mov_epi32(at, gt, _mm512_add_epi32(_mm512_set1_epi32(offs[i] + base), lane));
    }
    if (relu)
      best = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(best, _mm512_setzero_ps(), _CMP_GT_OQ), best);
    _mm512_mask_storeu_ps(y + c0, m, best);
    _mm512_mask_storeu_epi32(arg + c0, m, at);
  }
}

}  // namespace

void max_pool_sample_f32(const PoolGeometry& g, const float* xn, bool relu, float* y,
                         int32_t* arg) {
  if (g.k * g.k > kPoolWindowMax) {
    std::fprintf(stderr, "max_pool_sample_f32: window of %lld positions (internal bug)\n",
                 static_cast<long long>(g.k * g.k));
    std::abort();
  }
  int32_t offs[kPoolWindowMax];
  for (int64_t oh = 0; oh < g.ho; ++oh)
    for (int64_t ow = 0; ow < g.wo; ++ow, y += g.c, arg += g.c) {
      int n = 0;
      for (int64_t kh = 0; kh < g.k; ++kh) {
        const int64_t ih = oh * g.s - g.pt + kh;
        if (ih < 0 || ih >= g.h) continue;
        for (int64_t kw = 0; kw < g.k; ++kw) {
          const int64_t iw = ow * g.s - g.pl + kw;
          if (iw >= 0 && iw < g.w) offs[n++] = static_cast<int32_t>((ih * g.w + iw) * g.c);
        }
      }
      one_window(xn, offs, n, g.c, relu, y, arg);
    }
}

#else

void max_pool_sample_f32(const PoolGeometry&, const float*, bool, float*, int32_t*) {
  std::fprintf(stderr, "max_pool_sample_f32: built without AVX-512 (internal bug)\n");
  std::abort();
}

#endif

}  // namespace kp::trainer_detail
