// GCC 12 flags its own AVX-512 intrinsics (_mm512_undefined_ps) in the masked loads.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "models/trainer/im2col.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#ifdef __AVX512F__
#include <immintrin.h>
#endif

#include "models/trainer/layers.h"
#include "models/trainer/transpose16.h"
#include "models/trainer/worker_pool.h"

namespace kp::trainer_detail {

template <class T>
Im2col<T>::Im2col(const ResolvedLayer& l)
    : m_c(l.in.c), m_h(l.in.h), m_w_in(l.in.w), m_ho(l.out.h), m_wo(l.out.w), m_k(l.spec.kernel),
      m_s(l.spec.stride) {
  m_pt = pad_before(m_h, m_ho, m_k, m_s, l.spec.padding);
  m_pl = pad_before(m_w_in, m_wo, m_k, m_s, l.spec.padding);
  m_kk = m_k * m_k * m_c;
}

// For the pixels [q_lo, q_hi) of the chunk that starts at sample n0 (pixel q at column q of
// the buffer), calls f(c, off, len) for each run of one patch row (fixed n, oh, ow, kh) whose
// kernel columns fall inside the image: in HWC those len = (kw_hi - kw_lo) * C floats are
// contiguous in both x (from off) and the column buffer (from c); z(c, len) for the runs in the
// padding. The order (n, oh, ow, kh, kw, c) is the element-wise order, so add_columns adds into
// each dx element in the same sequence as one element at a time would.
template <class T>
template <class F, class Z>
void Im2col<T>::for_each_patch_row(int64_t n0, int64_t q_lo, int64_t q_hi, F&& f, Z&& z) const {
  const int64_t kc = m_k * m_c;
  for_each_pixel(n0, q_lo, q_hi, [&](int64_t q, int64_t n, int64_t oh, int64_t ow) {
    const int64_t iw0 = ow * m_s - m_pl;
    const int64_t lo = std::clamp<int64_t>(-iw0, 0, m_k);
    const int64_t hi = std::clamp<int64_t>(m_w_in - iw0, lo, m_k);
    for (int64_t kh = 0; kh < m_k; ++kh) {
      const int64_t c = q * m_kk + kh * kc;
      const int64_t ih = oh * m_s - m_pt + kh;
      if (ih < 0 || ih >= m_h || hi == lo) {
        z(c, kc);
        continue;
      }
      z(c, lo * m_c);
      f(c + lo * m_c, ((n * m_h + ih) * m_w_in + iw0 + lo) * m_c, (hi - lo) * m_c);
      z(c + hi * m_c, (m_k - hi) * m_c);
    }
  });
}
// Calls f(q, n, oh, ow) for the chunk's pixels q in [q_lo, q_hi) (the chunk starts at sample
// n0), counting (n, oh, ow) up: three 64-bit divisions a pixel cost more than conv1's copy.
template <class T>
template <class F>
void Im2col<T>::for_each_pixel(int64_t n0, int64_t q_lo, int64_t q_hi, F&& f) const {
  const int64_t pixels = m_ho * m_wo;
  int64_t n = n0 + q_lo / pixels, oh = q_lo % pixels / m_wo, ow = q_lo % m_wo;
  for (int64_t q = q_lo; q < q_hi; ++q) {
    if (q > q_lo && ++ow == m_wo) {
      ow = 0;
      if (++oh == m_ho) {
        oh = 0;
        ++n;
      }
    }
    f(q, n, oh, ow);
  }
}
template <class T>
void Im2col<T>::to_columns(const T* x, int64_t n0, int64_t nb, T* cols, WorkerPool* pool) const {
  parallel_for(pool, nb * m_ho * m_wo, 64, [&](int64_t lo, int64_t hi) {
#ifdef __AVX512F__
    if (std::is_same_v<T, float> && m_kk > 16 && m_kk <= 32)
      return m_c == 1 && m_s == 1 ? row_patches(x, n0, lo, hi, cols)
                                  : small_patches(x, n0, lo, hi, cols);
#endif
    for_each_patch_row(
        n0, lo, hi,
        [x, cols](int64_t c, int64_t off, int64_t len) {
          std::copy(x + off, x + off + len, cols + c);
        },
        [cols](int64_t c, int64_t len) { std::fill(cols + c, cols + c + len, T(0)); });
  });
}

// Split by input rows: neighbouring patches add into the same inputs, so each thread walks
// every patch row but adds only those landing in its own rows of dx, in the same order as
// one thread would (each element's sequence of additions is unchanged).
template <class T>
void Im2col<T>::add_columns(T* dx, int64_t n0, int64_t nb, const T* cols,
                            WorkerPool* pool) const {
  const int64_t row_floats = m_w_in * m_c;
  parallel_for(pool, m_h, 2, [&](int64_t h_lo, int64_t h_hi) {
    for_each_patch_row(
        n0, 0, nb * m_ho * m_wo,
        [=](int64_t c, int64_t off, int64_t len) {
          const int64_t ih = off / row_floats % m_h;
          if (ih < h_lo || ih >= h_hi) return;
          T* d = dx + off;
          const T* col = cols + c;
          for (int64_t i = 0; i < len; ++i) d[i] += col[i];
        },
        [](int64_t, int64_t) {});
  });
}

// im2col for patches of <= 32 floats (conv1 of the Simple CNN: 5 x 5 x 1 channel): a pixel's
// patch is assembled in two registers, each patch row by one masked load placed at its lanes
// (padding lanes masked off: zeros, as the general path writes), then stored whole, instead
// of five 5-float copies and fills through the general loop.
template <class T>
void Im2col<T>::small_patches(const T* x_, int64_t n0, int64_t q_lo, int64_t q_hi,
                              T* cols_) const {
#ifdef __AVX512F__
  if constexpr (std::is_same_v<T, float>) {
    const float* x = x_;
    float* cols = cols_;
    const int64_t row = m_k * m_c;
    const auto all = static_cast<uint32_t>((uint64_t{1} << row) - 1);  // row <= 32 (1x1: kk)
    for_each_pixel(n0, q_lo, q_hi, [&](int64_t q, int64_t n, int64_t oh, int64_t ow) {
      float* col = cols + q * m_kk;
      const int64_t iw0 = ow * m_s - m_pl;
      const int64_t lo = std::clamp<int64_t>(-iw0, 0, m_k) * m_c;
      const int64_t hi = std::clamp<int64_t>(m_w_in - iw0, 0, m_k) * m_c;
      const uint32_t in = hi > lo ? (all >> (row - hi)) & (all << lo) : 0u;
      __m512 v0 = _mm512_setzero_ps(), v1 = _mm512_setzero_ps();
      for (int64_t kh = 0; kh < m_k; ++kh) {
        const int64_t ih = oh * m_s - m_pt + kh;
        if (ih < 0 || ih >= m_h) continue;
        const int64_t at = kh * row;  // the first lane of this patch row
        const uint32_t lanes = in << at;
        // Input column iw0 of row ih sits at lane `at`: the addresses are formed as integers
        // (they can precede x in the padding; those lanes are masked off and never read).
        const auto base = reinterpret_cast<uintptr_t>(x) +
                          static_cast<uintptr_t>(((n * m_h + ih) * m_w_in + iw0) * m_c - at) *
                              sizeof(float);
        // Zero-masked loads ORed in (the lanes are disjoint): merge-masked loads would chain
        // each load's latency onto the previous one's.
        v0 = _mm512_or_ps(v0, _mm512_maskz_loadu_ps(static_cast<__mmask16>(lanes),
                                                    reinterpret_cast<const float*>(base)));
        v1 = _mm512_or_ps(v1, _mm512_maskz_loadu_ps(
                                  static_cast<__mmask16>(lanes >> 16),
                                  reinterpret_cast<const float*>(base + 16 * sizeof(float))));
      }
      _mm512_storeu_ps(col, v0);
      _mm512_mask_storeu_ps(col + 16, static_cast<__mmask16>((1u << (m_kk - 16)) - 1u), v1);
    });
    return;
  }
#endif
  (void)x_, (void)n0, (void)q_lo, (void)q_hi, (void)cols_;  // not float or no AVX-512
  std::fprintf(stderr, "im2col: small patches without AVX-512 float (internal bug)\n");
  std::abort();
}

// im2col for one channel, stride 1 and patches of 17-32 floats (conv1 of the Simple CNN): up
// to 16 neighbouring pixels of an output row at a time. Each patch element of those pixels is
// one load of 16 neighbouring inputs (lane j: pixel j; padding lanes masked off: zeros, as the
// general path writes); two 16 x 16 transposes then give each pixel's column. Alone: 15-19 ->
// 7-8 ns a pixel, against small_patches' two registers built from a masked load per patch row.
template <class T>
void Im2col<T>::row_patches(const T* x_, int64_t n0, int64_t q_lo, int64_t q_hi, T* cols_) const {
#ifdef __AVX512F__
  if constexpr (std::is_same_v<T, float>) {
    const float* x = x_;
    alignas(64) float rows[32 * 16];  // patch element p of pixel j at rows[p * 16 + j]
    const int64_t pixels = m_ho * m_wo;
    for (int64_t q = q_lo; q < q_hi;) {
      const int64_t n = n0 + q / pixels, oh = q % pixels / m_wo, ow0 = q % m_wo;
      const int64_t cnt = std::min({int64_t{16}, m_wo - ow0, q_hi - q});
      for (int64_t kh = 0; kh < m_k; ++kh) {
        const int64_t ih = oh - m_pt + kh;
        for (int64_t kw = 0; kw < m_k; ++kw) {
          float* row = rows + (kh * m_k + kw) * 16;
          const int64_t iw0 = ow0 - m_pl + kw;  // lane j reads input column iw0 + j
          const int64_t lo = std::clamp<int64_t>(-iw0, 0, cnt);
          const int64_t hi = std::clamp<int64_t>(m_w_in - iw0, lo, cnt);
          const auto in = static_cast<__mmask16>(((1u << hi) - 1u) & ~((1u << lo) - 1u));
          // The address is formed as an integer: it can precede x (those lanes are masked off).
          const auto at = reinterpret_cast<uintptr_t>(x) +
                          static_cast<uintptr_t>((n * m_h + ih) * m_w_in + iw0) * sizeof(float);
          _mm512_store_ps(row, ih < 0 || ih >= m_h ? _mm512_setzero_ps()
                                                   : _mm512_maskz_loadu_ps(
                                                         in, reinterpret_cast<const float*>(at)));
        }
      }
      __m512 first[16], rest[16];
      load_transposed(rows, 16, 16, 0xFFFF, first);
      load_transposed(rows + 16 * 16, 16, m_kk - 16, 0xFFFF, rest);
      const auto tail = static_cast<__mmask16>((1u << (m_kk - 16)) - 1u);
      float* col = cols_ + q * m_kk;
      for (int64_t j = 0; j < cnt; ++j) {
        _mm512_storeu_ps(col + j * m_kk, first[j]);
        _mm512_mask_storeu_ps(col + j * m_kk + 16, tail, rest[j]);
      }
      q += cnt;
    }
    return;
  }
#endif
  (void)x_, (void)n0, (void)q_lo, (void)q_hi, (void)cols_;  // not float or no AVX-512
  std::fprintf(stderr, "im2col: row patches without AVX-512 float (internal bug)\n");
  std::abort();
}

template class Im2col<float>;
template class Im2col<double>;

}  // namespace kp::trainer_detail
