// GCC 12 flags its own AVX-512 intrinsics (_mm512_undefined_ps) in the masked loads.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "models/trainer/conv_gemm.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "models/trainer/gemm_depth_loop.h"
#include "models/trainer/gemm_pack.h"
#include "models/trainer/layers.h"
#include "models/trainer/width_dispatch.h"

namespace kp::trainer_detail {

namespace {
constexpr int64_t kMaxTileCols = 14;  // 28 accumulators, two A registers and a broadcast
}

bool ImplicitConv::suits(const ResolvedLayer& l) {
#ifdef __AVX512F__
  return sgemm_available() && l.spec.kind == LayerKind::Conv2d && l.spec.stride == 1 &&
         (l.in.c >= 8 || l.in.c == 1);
#else
  (void)l;
  return false;
#endif
}

ImplicitConv::ImplicitConv(const ResolvedLayer& l)
    : m_c(l.in.c), m_k(l.spec.kernel), m_h(l.in.h), m_w(l.in.w), m_ho(l.out.h), m_wo(l.out.w),
      m_f(l.out.c) {
  m_pt = pad_before(m_h, m_ho, m_k, 1, l.spec.padding);
  m_pl = pad_before(m_w, m_wo, m_k, 1, l.spec.padding);
  m_ph = m_ho + m_k - 1;  // stride 1: every output row's patch rows lie in [0, m_ph)
  m_pw = m_wo + m_k - 1;
  if (l.spec.stride != 1 || m_pt + m_h > m_ph || m_pl + m_w > m_pw) {
    std::fprintf(stderr, "ImplicitConv: unsuitable layer (internal bug)\n");
    std::abort();
  }
}

int64_t ImplicitConv::padded_floats() const {
  // A last tile of a row reads up to 3 columns past wo (kernels of 4, 8, 12 and 14 columns).
  return (m_ph * m_pw + 4) * m_c;
}

void ImplicitConv::pad(const float* x, float* padded) const {
  for (int64_t i = 0; i < m_h; ++i)
    std::memcpy(padded + ((m_pt + i) * m_pw + m_pl) * m_c, x + i * m_w * m_c,
                static_cast<size_t>(m_w * m_c) * sizeof(float));
}

#ifdef __AVX512F__
namespace {
// The first `cols` columns of c (32 rows masked by m0 and m1, leading dimension ldc) plus the
// bias of their rows.
void add_bias(float* c, int64_t ldc, int64_t cols, __mmask16 m0, __mmask16 m1, const float* b) {
  const __m512 b0 = _mm512_maskz_loadu_ps(m0, b), b1 = _mm512_maskz_loadu_ps(m1, b + 16);
  for (int64_t j = 0; j < cols; ++j) {
    float* cj = c + j * ldc;
    _mm512_mask_storeu_ps(cj, m0, _mm512_add_ps(_mm512_maskz_loadu_ps(m0, cj), b0));
    _mm512_mask_storeu_ps(cj + 16, m1, _mm512_add_ps(_mm512_maskz_loadu_ps(m1, cj + 16), b1));
  }
}
}  // namespace

// Rows [i0, i0 + kMr) of the output pixels (oh, ow0 .. ow0 + cols): for each depth block of
// sgemm's blocking, one FMA chain per element over the block's kernel-row runs, stored or (after
// the first block) added to y, as sgemm_blocked() does.
template <int64_t kNr>
void ImplicitConv::tile(const PackedA& w, const float* padded, int64_t i0, int64_t oh,
                        int64_t ow0, int64_t cols, float* y, const float* bias) const {
  const int64_t kk = m_k * m_k * m_c, run = m_k * m_c, kb = depth_block(kk);
  const int64_t rows = std::min(kMr, m_f - i0);
  const __mmask16 m0 = lanes(rows), m1 = lanes(rows - 16);
  const float* const patch = padded + (oh * m_pw + ow0) * m_c;  // column 0's, kernel row 0
  float* const out = y + i0 + (oh * m_wo + ow0) * m_f;
  for (int64_t pc = 0; pc < kk; pc += kb) {
    const int64_t kc = std::min(kb, kk - pc);
    const float* const ap = w.panels(pc, kc, i0);
    __m512 c0[kNr], c1[kNr];
#pragma GCC unroll 16
    for (int j = 0; j < kNr; ++j) c0[j] = c1[j] = _mm512_setzero_ps();
    for (int64_t p = pc; p < pc + kc;) {  // the runs of kernel rows within the block
      const int64_t kh = p / run, end = std::min(pc + kc, (kh + 1) * run);
      depth_loop<kNr, true, true, false>(end - p, ap + (p - pc) * kMr, kMr,
                                         patch + kh * m_pw * m_c + (p - kh * run), m_c, m0, m1,
                                         c0, c1);
      p = end;
    }
    const bool last = pc + kc >= kk;
    // The chain alone: the bias added to it in registers. Against add_bias() after the store
    // here too, Simple CNN M=128 faster in 19 and 17 of 30 in-process rounds (conv1, one block).
    if (bias && last && pc == 0) {
      const __m512 b0 = _mm512_maskz_loadu_ps(m0, bias + i0);
      const __m512 b1 = _mm512_maskz_loadu_ps(m1, bias + i0 + 16);
#pragma GCC unroll 16
      for (int j = 0; j < kNr; ++j) {
        c0[j] = _mm512_add_ps(c0[j], b0);
        c1[j] = _mm512_add_ps(c1[j], b1);
      }
    }
    store_tile(c0, c1, out, m_f, cols, m0, m1, pc > 0, nullptr);
    if (bias && last && pc > 0) add_bias(out, m_f, cols, m0, m1, bias + i0);
  }
}

void ImplicitConv::forward(const PackedA& w, const float* padded, float* y,
                           const float* bias) const {
  if (w.rows() != m_f || w.depth() != m_k * m_k * m_c) {
    std::fprintf(stderr, "ImplicitConv: weights packed for another shape (internal bug)\n");
    std::abort();
  }
  for (int64_t i0 = 0; i0 < m_f; i0 += kMr)
    for (int64_t oh = 0; oh < m_ho; ++oh)
      for (int64_t ow0 = 0; ow0 < m_wo; ow0 += kMaxTileCols) {
        const int64_t cols = std::min(kMaxTileCols, m_wo - ow0);
        if (cols <= 4)
          tile<4>(w, padded, i0, oh, ow0, cols, y, bias);
        else if (cols <= 8)
          tile<8>(w, padded, i0, oh, ow0, cols, y, bias);
        else if (cols <= 12)
          tile<12>(w, padded, i0, oh, ow0, cols, y, bias);
        else
          tile<14>(w, padded, i0, oh, ow0, cols, y, bias);
      }
}

// Rows [i0, i0 + kMr) x columns [j0, j0 + kNr) of g, over pixels [p0, p0 + kc) of the chunk:
// one FMA chain per element in pixel order, stored to g or added to it, as sgemm_blocked()
// treats a depth block. Pixel p's patch column j lies off[j] floats past the pixel's patch
// origin; along an output row the origin moves c floats a pixel.
template <int64_t kNr>
void ImplicitConv::grad_tile(const float* padded, const float* dy, int64_t p0, int64_t kc,
                             int64_t i0, int64_t j0, float* g, bool acc) const {
  const int64_t run = m_k * m_c, per = m_ho * m_wo;
  int64_t off[kNr];
  for (int64_t j = 0; j < kNr; ++j)  // im2col's column order: kernel row, column, channel
    off[j] = (j0 + j) / run * m_pw * m_c + (j0 + j) % run;
  const int64_t rows = std::min(kMr, m_f - i0);
  const __mmask16 m0 = lanes(rows), m1 = lanes(rows - 16);
  __m512 c0[kNr], c1[kNr];
#pragma GCC unroll 16
  for (int j = 0; j < kNr; ++j) c0[j] = c1[j] = _mm512_setzero_ps();
  for (int64_t p = p0; p < p0 + kc;) {  // the block's runs of pixels along an output row
    const int64_t n = p / per, oh = p % per / m_wo, ow = p % m_wo;
    const int64_t end = std::min(p0 + kc, p + m_wo - ow);
    const float* bp = padded + n * padded_floats() + (oh * m_pw + ow) * m_c;
    const float* ap = dy + p * m_f + i0;
    for (; p < end; ++p, ap += m_f, bp += m_c) {
      const __m512 a0 = _mm512_maskz_loadu_ps(m0, ap), a1 = _mm512_maskz_loadu_ps(m1, ap + 16);
#pragma GCC unroll 16
      for (int j = 0; j < kNr; ++j) {
        const __m512 bj = _mm512_set1_ps(bp[off[j]]);
        c0[j] = _mm512_fmadd_ps(a0, bj, c0[j]);
        c1[j] = _mm512_fmadd_ps(a1, bj, c1[j]);
      }
    }
  }
  store_tile(c0, c1, g + i0 + j0 * m_f, m_f, kNr, m0, m1, acc, nullptr);
}

void ImplicitConv::weight_grad(const float* padded, int64_t nb, const float* dy, float* g,
                               bool accumulate) const {
  const int64_t q = nb * m_ho * m_wo, kk = m_k * m_k * m_c, kb = depth_block(q);
  // Columns in ceil(kk / 14) nearly equal register tiles: 25 as 13 + 12.
  const int64_t tiles = ceil_div(kk, kMaxTileCols), base = kk / tiles, extra = kk % tiles;
  for (int64_t p0 = 0; p0 < q; p0 += kb) {  // each block's dy read from memory once
    const int64_t kc = std::min(kb, q - p0);
    const bool acc = accumulate || p0 > 0;
    for (int64_t i0 = 0; i0 < m_f; i0 += kMr)
      for (int64_t t = 0, j0 = 0; t < tiles; ++t) {
        const int64_t cols = base + (t < extra ? 1 : 0);
        with_width<1, kMaxTileCols>(cols, "ImplicitConv::weight_grad", [&](auto n) {
          grad_tile<decltype(n)::value>(padded, dy, p0, kc, i0, j0, g, acc);
        });
        j0 += cols;
      }
  }
}
#else
void ImplicitConv::forward(const PackedA&, const float*, float*, const float*) const {
  std::fprintf(stderr, "ImplicitConv: no AVX-512 in this build (internal bug)\n");
  std::abort();
}
void ImplicitConv::weight_grad(const float*, int64_t, const float*, float*, bool) const {
  std::fprintf(stderr, "ImplicitConv: no AVX-512 in this build (internal bug)\n");
  std::abort();
}
#endif

}  // namespace kp::trainer_detail
