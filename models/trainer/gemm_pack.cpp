#include "models/trainer/gemm_pack.h"

#ifdef __AVX512F__
#include <algorithm>

// GCC 12's own intrinsics (_mm512_undefined_ps inside the masked loads) trip -Wuninitialized.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace kp::trainer_detail {

namespace {

// out[q] lane r = src[r * ld + q] for r < nrows and q in `cols` (other lanes zero): a 16 x 16
// transpose in registers (unpack, shuffle, then two 128-bit lane shuffles), ~0.3 shuffles a float
// against one scalar load and store per float for the plain packing loop.
void load_transposed(const float* src, int64_t ld, int64_t nrows, __mmask16 cols, __m512 out[16]) {
  __m512 r[16], t[16];
  for (int i = 0; i < 16; ++i)
    r[i] = i < nrows ? _mm512_maskz_loadu_ps(cols, src + i * ld) : _mm512_setzero_ps();
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 16; i += 4) {
    r[i] = _mm512_shuffle_ps(t[i], t[i + 2], 0x44);
    r[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], 0xEE);
    r[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    r[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
  for (int i = 0; i < 4; ++i) {
    t[i] = _mm512_shuffle_f32x4(r[i], r[i + 4], 0x88);
    t[i + 4] = _mm512_shuffle_f32x4(r[i], r[i + 4], 0xDD);
    t[i + 8] = _mm512_shuffle_f32x4(r[i + 8], r[i + 12], 0x88);
    t[i + 12] = _mm512_shuffle_f32x4(r[i + 8], r[i + 12], 0xDD);
  }
  for (int i = 0; i < 8; ++i) {
    out[i] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0x88);
    out[i + 8] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0xDD);
  }
}

}  // namespace

// Panels of kMr rows of op(A), each stored k-major (kMr floats per depth step), zero-padded.
void pack_a(Trans ta, const float* a, int64_t lda, int64_t i0, int64_t mc, int64_t p0, int64_t kc,
            float* dst) {
  for (int64_t ir = 0; ir < mc; ir += kMr, dst += kMr * kc) {
    const int64_t rows = std::min(kMr, mc - ir);
    if (ta == Trans::No) {
      const __mmask16 m0 = lanes(rows), m1 = lanes(rows - 16);
      const float* src = a + (i0 + ir) + p0 * lda;
      for (int64_t p = 0; p < kc; ++p, src += lda) {
        _mm512_store_ps(dst + p * kMr, _mm512_maskz_loadu_ps(m0, src));
        _mm512_store_ps(dst + p * kMr + 16, _mm512_maskz_loadu_ps(m1, src + 16));
      }
    } else {  // op(A)(i, p) = a[p + i * lda]: a panel row is contiguous in p
      for (int64_t h = 0; h < kMr; h += 16) {
        const float* src = a + (i0 + ir + h) * lda + p0;
        for (int64_t p = 0; p < kc; p += 16) {
          __m512 t[16];
          load_transposed(src + p, lda, rows - h, lanes(kc - p), t);
          for (int64_t q = 0; q < std::min<int64_t>(16, kc - p); ++q)
            _mm512_store_ps(dst + (p + q) * kMr + h, t[q]);
        }
      }
    }
  }
}

// Panels of kNr columns of op(B), each stored k-major (kNr floats per depth step), zero-padded.
template <int64_t kNr>
void pack_b(Trans tb, const float* b, int64_t ldb, int64_t p0, int64_t kc, int64_t j0, int64_t nc,
            float* dst) {
  for (int64_t jr = 0; jr < nc; jr += kNr, dst += kNr * kc) {
    const int64_t cols = std::min(kNr, nc - jr);
    if (tb == Trans::Yes) {  // op(B)(p, j) = b[j + p * ldb]: contiguous in j
      const __mmask16 m = lanes(cols);
      const float* src = b + (j0 + jr) + p0 * ldb;
      for (int64_t p = 0; p < kc; ++p, src += ldb)
        _mm512_mask_storeu_ps(dst + p * kNr, lanes(kNr), _mm512_maskz_loadu_ps(m, src));
    } else {  // column j of op(B) is contiguous in p
      const float* src = b + p0 + (j0 + jr) * ldb;
      for (int64_t p = 0; p < kc; p += 16) {
        __m512 t[16];
        load_transposed(src + p, ldb, cols, lanes(kc - p), t);
        for (int64_t q = 0; q < std::min<int64_t>(16, kc - p); ++q)
          _mm512_mask_storeu_ps(dst + (p + q) * kNr, lanes(kNr), t[q]);
      }
    }
  }
}

template void pack_b<8>(Trans, const float*, int64_t, int64_t, int64_t, int64_t, int64_t, float*);
template void pack_b<12>(Trans, const float*, int64_t, int64_t, int64_t, int64_t, int64_t, float*);

}  // namespace kp::trainer_detail
#endif
