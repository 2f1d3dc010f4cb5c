#pragma once
// A 16 x 16 float transpose in AVX-512 registers, shared by the GEMM's packing (gemm_pack.cpp)
// and im2col (im2col.cpp). Internal to kp_trainer; empty without AVX-512.
#include <cstdint>

#ifdef __AVX512F__
#include <immintrin.h>

namespace kp::trainer_detail {

// out[q] lane r = src[r * ld + q] for r < nrows and q in `cols` (other lanes zero): a 16 x 16
// transpose in registers (unpack, shuffle, then two 128-bit lane shuffles), ~0.3 shuffles a float
// against one scalar load and store per float for the plain packing loop.
inline void load_transposed(const float* src, int64_t ld, int64_t nrows, __mmask16 cols,
                            __m512 out[16]) {
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

}  // namespace kp::trainer_detail
#endif
