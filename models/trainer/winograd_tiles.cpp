// WinogradTiles (winograd_tiles.h): the transforms and products of F(m x m, 5 x 5), a call of up
// to samples() samples at a time.
// GCC 12 flags its own AVX-512 intrinsics (_mm512_undefined_ps) in the masked loads.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "models/trainer/winograd_tiles.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/int_math.h"
#include "models/trainer/gemm.h"
#include "models/trainer/gemm_depth_loop.h"
#include "models/trainer/layers.h"
#include "models/trainer/transpose16.h"
#include "models/trainer/winograd_f5.h"
#include "models/trainer/winograd_transforms.h"
#include "models/trainer/width_dispatch.h"

#ifdef __AVX512F__
namespace kp::trainer_detail {

namespace {
constexpr int64_t kMaxCols = 14;  // register tile 32 x 14: 28 accumulators, as conv_gemm.cpp

template <int64_t kNr, bool kBCols>
void tile_product(int64_t kc, const float* ap, int64_t a_step, const float* bp, int64_t b_step,
                  __mmask16 m0, __mmask16 m1, float* c, int64_t ldc, bool acc) {
  __m512 c0[kNr], c1[kNr];
#pragma GCC unroll 16
  for (int j = 0; j < kNr; ++j) c0[j] = c1[j] = _mm512_setzero_ps();
  depth_loop<kNr, true, kBCols, false>(kc, ap, a_step, bp, b_step, m0, m1, c0, c1);
  store_tile(c0, c1, c, ldc, kNr, m0, m1, acc, nullptr);
}

// C (32 rows masked by m0, m1 x cols, ldc) = (C if acc) + A B over kc depth steps: A's rows are
// 32 floats a step (a_step apart), B is read as depth_loop() reads it (kBCols). One FMA chain
// per element from zero, added to C once.
template <bool kBCols>
void product(int64_t cols, int64_t kc, const float* ap, int64_t a_step, const float* bp,
             int64_t b_step, __mmask16 m0, __mmask16 m1, float* c, int64_t ldc, bool acc) {
  with_width<1, kMaxCols>(cols, "WinogradTiles", [&](auto n) {
    tile_product<decltype(n)::value, kBCols>(kc, ap, a_step, bp, b_step, m0, m1, c, ldc, acc);
  });
}

// f(j0, cols) over [0, n) in ceil(n / 14) nearly equal blocks: 49 tiles as 13 + 12 + 12 + 12
// rather than 14 + 14 + 14 + 7, every block a near-full register tile.
template <class F>
void col_blocks(int64_t n, F&& f) {
  const int64_t blocks = ceil_div(n, kMaxCols), base = n / blocks, extra = n % blocks;
  for (int64_t b = 0, j0 = 0; b < blocks; ++b) {
    const int64_t cols = base + (b < extra ? 1 : 0);
    f(j0, cols);
    j0 += cols;
  }
}

}  // namespace

template <class S>
WinogradTiles<S>::WinogradTiles(const ResolvedLayer& l, int64_t samples)
    : m_c(l.in.c), m_h(l.in.h), m_w(l.in.w), m_ho(l.out.h), m_wo(l.out.w), m_f(l.out.c),
      m_samples(samples) {
  m_pt = pad_before(m_h, m_ho, 5, 1, l.spec.padding);
  m_pl = pad_before(m_w, m_wo, 5, 1, l.spec.padding);
  m_th = ceil_div(m_ho, kTile);
  m_tw = ceil_div(m_wo, kTile);
  m_tiles = m_th * m_tw;
  m_ph = kTile * m_th + 4;
  m_pw = kTile * m_tw + 4;
  m_cp = ceil_div(m_c, 32) * 32;
  m_fp = ceil_div(m_f, 32) * 32;
  // One cache line more than the points' data apart: at 16 tiles x 64 filters they would be
  // 4 KiB apart, and the transforms' stores of a tile's 64 points would all fall in one L1 set.
  m_vs = m_samples * m_tiles * m_cp + 16;
  m_ms = m_samples * m_tiles * m_fp + 16;
  m_ufs = m_fp * m_cp + 16;  // and U's, at 64 filters x 32 channels 8 KiB apart
  m_us = m_f * m_cp + 16;
  if (!suits(l) || m_samples < 1 || m_pt + m_h > m_ph || m_pl + m_w > m_pw) {
    std::fprintf(stderr, "WinogradTiles: unsuitable layer (internal bug)\n");
    std::abort();
  }
  m_uf.assign(static_cast<size_t>(kXi * m_ufs), 0.0f);
  m_ub.assign(static_cast<size_t>(kXi * m_us), 0.0f);
}

template <class S>
WinogradConv::Scratch WinogradTiles<S>::make_scratch() const {
  Scratch s;
  s.padded.assign(static_cast<size_t>(m_ph * m_pw * m_cp), 0.0f);
  s.padded_dx.assign(s.padded.size(), 0.0f);
  s.v.assign(static_cast<size_t>(kXi * m_vs), 0.0f);
  s.dv.assign(s.v.size(), 0.0f);
  s.m.assign(static_cast<size_t>(kXi * m_ms), 0.0f);
  return s;
}

template <class S>
void WinogradTiles<S>::set_weights(const float* w) {
  for (int64_t ci = 0; ci < m_c; ++ci)
    for (int64_t f0 = 0; f0 < m_f; f0 += 16) {
      const __mmask16 mask = lanes(m_f - f0);
      __m512 g[5][5], u[kAlpha][kAlpha];
      for (int kh = 0; kh < 5; ++kh)
        for (int kw = 0; kw < 5; ++kw)
          g[kh][kw] = _mm512_maskz_loadu_ps(mask, w + f0 + m_f * ((kh * 5 + kw) * m_c + ci));
      winograd::sandwich(S::Matrices::kG, g, u);
      for (int64_t xi = 0; xi < kXi; ++xi)
        _mm512_storeu_ps(&m_uf[static_cast<size_t>(xi * m_ufs + ((f0 / 32) * m_cp + ci) * 32 +
                                                   f0 % 32)],
                         u[xi / kAlpha][xi % kAlpha]);
    }
  // m_ub = m_uf transposed, 16 x 16 blocks in registers: scattered as single floats (16 per
  // vector, 256 KB a step for conv2), they took ~1% of a Simple CNN step at b=128.
  for (int64_t xi = 0; xi < kXi; ++xi)
    for (int64_t f0 = 0; f0 < m_f; f0 += 16)
      for (int64_t c0 = 0; c0 < m_c; c0 += 16) {
        __m512 col[16];  // col[q]: U over 16 channels for filter f0 + q
        load_transposed(m_uf.data() + xi * m_ufs + ((f0 / 32) * m_cp + c0) * 32 + f0 % 32, 32,
                        std::min<int64_t>(16, m_c - c0), lanes(m_f - f0), col);
        for (int64_t q = 0; q < std::min<int64_t>(16, m_f - f0); ++q)
          _mm512_store_ps(m_ub.data() + xi * m_us + (f0 + q) * m_cp + c0, col[q]);
      }
}

// The samples x one by one into the padded buffer, then V (s.v: [xi][tile][channel], the
// samples' tiles in turn) = B^T d B per tile.
template <class S>
void WinogradTiles<S>::input_transform(const float* x, int64_t samples, Scratch& s) const {
  for (int64_t n = 0; n < samples; ++n) transform_sample(x + n * m_h * m_w * m_c, n, s);
}

template <class S>
void WinogradTiles<S>::transform_sample(const float* x, int64_t n, Scratch& s) const {
  float* const pad = s.padded.data();
  for (int64_t i = 0; i < m_h; ++i) {
    float* row = pad + ((m_pt + i) * m_pw + m_pl) * m_cp;
    if (m_c == m_cp) {
      std::memcpy(row, x + i * m_w * m_c, static_cast<size_t>(m_w * m_c) * sizeof(float));
      continue;
    }
    for (int64_t j = 0; j < m_w; ++j)
      std::memcpy(row + j * m_cp, x + (i * m_w + j) * m_c,
                  static_cast<size_t>(m_c) * sizeof(float));
  }
  for (int64_t t = 0; t < m_tiles; ++t) {
    const float* src = pad + ((t / m_tw) * kTile * m_pw + (t % m_tw) * kTile) * m_cp;
    for (int64_t c0 = 0; c0 < m_cp; c0 += 16) {
      const float* const in = src + c0;
      float* const dst = s.v.data() + (n * m_tiles + t) * m_cp + c0;
      const int64_t row = m_pw * m_cp, col = m_cp, vs = m_vs;
      winograd::sandwich_io<typename S::Bt>(
          [&](int i, int j) { return _mm512_load_ps(in + i * row + j * col); },
          [&](int i, int j, __m512 v) { _mm512_store_ps(dst + (i * kAlpha + j) * vs, v); });
    }
  }
}

template <class S>
void WinogradTiles<S>::forward(const float* x, float* y, int64_t samples, const float* bias,
                               Scratch& s) const {
  check_samples(samples);
  const int64_t tiles = samples * m_tiles;
  input_transform(x, samples, s);
  for (int64_t xi = 0; xi < kXi; ++xi)
    for (int64_t f0 = 0; f0 < m_f; f0 += 32) {  // M = U V: [xi][tile][filter]
      const __mmask16 m0 = lanes(m_f - f0), m1 = lanes(m_f - f0 - 16);
      const float* ap = m_uf.data() + xi * m_ufs + (f0 / 32) * m_cp * 32;
      col_blocks(tiles, [&](int64_t t0, int64_t cols) {
        product<true>(cols, m_cp, ap, 32, s.v.data() + xi * m_vs + t0 * m_cp, m_cp, m0, m1,
                      s.m.data() + xi * m_ms + t0 * m_fp + f0, m_fp, false);
      });
    }
  for (int64_t t = 0; t < tiles; ++t) {  // Y = A^T M A
    const int64_t oy = (t % m_tiles / m_tw) * kTile, ox = (t % m_tw) * kTile;
    float* const yn = y + (t / m_tiles) * m_ho * m_wo * m_f;
    for (int64_t f0 = 0; f0 < m_f; f0 += 16) {
      const float* const src = s.m.data() + t * m_fp + f0;
      const __mmask16 mask = lanes(m_f - f0);
      const __m512 b = bias ? _mm512_maskz_loadu_ps(mask, bias + f0) : _mm512_setzero_ps();
      const bool add = bias != nullptr;
      const int64_t ms = m_ms, ho = m_ho, wo = m_wo, f = m_f;
      winograd::sandwich_io<typename S::At>(
          [&](int i, int j) { return _mm512_load_ps(src + (i * kAlpha + j) * ms); },
          [&](int a, int c, __m512 v) {
            if (oy + a < ho && ox + c < wo)
              _mm512_mask_storeu_ps(yn + ((oy + a) * wo + ox + c) * f + f0, mask,
                                    add ? _mm512_add_ps(v, b) : v);
          });
    }
  }
}

template <class S>
void WinogradTiles<S>::backward(const float* x, const float* dy, float* du, bool acc, float* dx,
                                int64_t samples, Scratch& s) const {
  check_samples(samples);
  const int64_t tiles = samples * m_tiles;
  // V again rather than kept from the forward: the input transform is ~1.5-1.8% of a Simple
  // CNN step (perf), while keeping V would write and read back 93 KB a sample with 5 x 5 tiles
  // (128 KB with 4 x 4; 12-16 MB at b=128), beyond L2 between the two passes.
  input_transform(x, samples, s);
  for (int64_t t = 0; t < tiles; ++t) {  // dM = A dY A^T
    const int64_t oy = (t % m_tiles / m_tw) * kTile, ox = (t % m_tw) * kTile;
    const float* const dyn = dy + (t / m_tiles) * m_ho * m_wo * m_f;
    for (int64_t f0 = 0; f0 < m_f; f0 += 16) {
      const __mmask16 mask = lanes(m_f - f0);
      float* const dst = s.m.data() + t * m_fp + f0;
      const int64_t ms = m_ms, ho = m_ho, wo = m_wo, f = m_f;
      winograd::sandwich_io<typename S::A>(
          [&](int a, int b) {
            return oy + a < ho && ox + b < wo
                       ? _mm512_maskz_loadu_ps(mask, dyn + ((oy + a) * wo + ox + b) * f + f0)
                       : _mm512_setzero_ps();
          },
          [&](int i, int j, __m512 v) { _mm512_store_ps(dst + (i * kAlpha + j) * ms, v); });
    }
  }
  const __mmask16 all = 0xFFFF;
  for (int64_t xi = 0; xi < kXi; ++xi)  // dU^T (du: [xi][filter][channel]) = sum over tiles
    for (int64_t c0 = 0; c0 < m_cp; c0 += 32)
      col_blocks(m_f, [&](int64_t f0, int64_t cols) {
        product<false>(cols, tiles, s.v.data() + xi * m_vs + c0, m_cp,
                       s.m.data() + xi * m_ms + f0, m_fp, all, all,
                       du + xi * m_us + f0 * m_cp + c0, m_cp, acc);
      });
  if (!dx) return;
  for (int64_t xi = 0; xi < kXi; ++xi)  // dV = U^T dM: [xi][tile][channel]
    for (int64_t c0 = 0; c0 < m_cp; c0 += 32)
      col_blocks(tiles, [&](int64_t t0, int64_t cols) {
        product<true>(cols, m_f, m_ub.data() + xi * m_us + c0, m_cp,
                      s.m.data() + xi * m_ms + t0 * m_fp, m_fp, all, all,
                      s.dv.data() + xi * m_vs + t0 * m_cp + c0, m_cp, false);
      });
  for (int64_t n = 0; n < samples; ++n) input_grad(dx + n * m_h * m_w * m_c, n, s);
}

// Sample n's dx from its tiles' dV: dd = B dV B^T, added over overlapping tiles in order.
template <class S>
void WinogradTiles<S>::input_grad(float* dx, int64_t n, Scratch& s) const {
  float* const pad = s.padded_dx.data();
  std::fill(s.padded_dx.begin(), s.padded_dx.end(), 0.0f);
  for (int64_t t = 0; t < m_tiles; ++t) {
    float* dst = pad + ((t / m_tw) * kTile * m_pw + (t % m_tw) * kTile) * m_cp;
    for (int64_t c0 = 0; c0 < m_cp; c0 += 16) {
      const float* const src = s.dv.data() + (n * m_tiles + t) * m_cp + c0;
      float* const out = dst + c0;
      const int64_t vs = m_vs, row = m_pw * m_cp, col = m_cp;
      winograd::sandwich_io<typename S::B>(
          [&](int i, int j) { return _mm512_load_ps(src + (i * kAlpha + j) * vs); },
          [&](int i, int j, __m512 v) {
            float* p = out + i * row + j * col;
            _mm512_store_ps(p, _mm512_add_ps(_mm512_load_ps(p), v));
          });
    }
  }
  for (int64_t i = 0; i < m_h; ++i)
    for (int64_t j = 0; j < m_w; ++j)
      std::memcpy(dx + (i * m_w + j) * m_c, pad + ((m_pt + i) * m_pw + m_pl + j) * m_cp,
                  static_cast<size_t>(m_c) * sizeof(float));
}

template <class S>
void WinogradTiles<S>::weight_grad(const float* du, float* dw) const {
  alignas(64) float lane[16];
  for (int64_t co = 0; co < m_f; ++co)
    for (int64_t c0 = 0; c0 < m_c; c0 += 16) {
      __m512 u[kAlpha][kAlpha], g[5][5];
      for (int64_t xi = 0; xi < kXi; ++xi)
        u[xi / kAlpha][xi % kAlpha] = _mm512_loadu_ps(du + xi * m_us + co * m_cp + c0);
      winograd::sandwich(winograd::Transposes<typename S::Matrices>::kGT, u, g);
      for (int kh = 0; kh < 5; ++kh)
        for (int kw = 0; kw < 5; ++kw) {
          _mm512_store_ps(lane, g[kh][kw]);
          for (int64_t j = 0; j < std::min<int64_t>(16, m_c - c0); ++j)
            dw[co + m_f * ((kh * 5 + kw) * m_c + c0 + j)] = lane[j];
        }
    }
}

template <class S>
void WinogradTiles<S>::check_samples(int64_t samples) const {
  if (samples >= 1 && samples <= m_samples) return;
  std::fprintf(stderr, "WinogradTiles: %lld samples in a call, %lld at most (internal bug)\n",
               static_cast<long long>(samples), static_cast<long long>(m_samples));
  std::abort();
}

template class WinogradTiles<winograd::F4Scheme>;
template class WinogradTiles<winograd::F5Scheme>;

}  // namespace kp::trainer_detail
#endif
