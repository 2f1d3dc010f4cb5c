// GCC 12 flags its own AVX-512 intrinsics (_mm512_undefined_ps) in the masked loads.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "models/trainer/panel_input_grad.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "models/trainer/gemm_depth_loop.h"
#include "models/trainer/gemm_pack.h"
#include "models/trainer/fused_layer.h"
#include "models/trainer/relu_loops.h"
#include "models/trainer/width_dispatch.h"
#include "models/trainer/worker_pool.h"

namespace kp::trainer_detail {

#ifdef __AVX512F__
namespace {

constexpr int64_t kMaxCols = 12;  // 32 x 12: 24 accumulators, as sgemm's widest tile
constexpr int64_t kAhead = 2;
constexpr int64_t kMaxPanels = kFusedMaxBatch / kMr;  // the batches the panels are armed for

struct Operands {
  const PackedA& w;
  const PackedA& dyt;
  const float* relu_y;
  float* out;
  int64_t ld;
};

// n <= 32 depth steps of a packed A panel (dy^T) times columns of W kMr floats apart, each
// contiguous over the steps: constant offsets from one pointer. depth_loop(), which takes the
// columns' stride at run time, made fc1's product 11% slower alone (perf samples, 300 products).
template <int64_t kNr>
inline void run(int64_t n, const float* ap, const float* bp, __m512 (&c0)[kNr],
                __m512 (&c1)[kNr]) {
  for (int64_t p = 0; p < n; ++p, ap += kMr, ++bp) {
    prefetch(ap, kPrefetchSteps * kMr);
    prefetch(ap, kPrefetchSteps * kMr + 16);
    const __m512 a0 = _mm512_loadu_ps(ap), a1 = _mm512_loadu_ps(ap + 16);
#pragma GCC unroll 16
    for (int j = 0; j < kNr; ++j) {
      const __m512 bj = _mm512_set1_ps(bp[j * kMr]);
      c0[j] = _mm512_fmadd_ps(a0, bj, c0[j]);
      c1[j] = _mm512_fmadd_ps(a1, bj, c1[j]);
    }
  }
}

// Inputs [j0, j0 + cols) (within one depth block of W's panels), all samples: for each depth
// block of outputs, each 32-sample panel's chain per element over the block's 32-output runs,
// stored or added to that panel's tile as sgemm_blocked() stores or adds a block to C; then
// written out. The block's runs of W (kNr x 256 floats for fc1) stay in L1 for every panel.
template <int64_t kNr>
void tile(const Operands& o, int64_t j0, int64_t cols) {
  const int64_t outputs = o.w.rows(), batch = o.dyt.rows(), kb = depth_block(outputs);
  // Row panel r's column j0 lies r / 32 panel steps past row panel 0's, found here rather than
  // by a call inside the loops, across which the accumulators would be spilled.
  const int64_t step = o.w.panel_step(j0);
  const float* const b0 = o.w.column(0, j0);
  alignas(64) float t[kMaxPanels][kMr * kNr];
  for (int64_t pc = 0; pc < outputs; pc += kb) {
    const int64_t kc = std::min(kb, outputs - pc);
    for (int64_t s0 = 0; s0 < batch; s0 += kMr) {
      const int64_t rows = std::min(kMr, batch - s0);
      const __mmask16 m0 = lanes(rows), m1 = lanes(rows - 16);
      const float* const ap = o.dyt.panels(pc, kc, s0);
      __m512 c0[kNr], c1[kNr];
#pragma GCC unroll 16
      for (int j = 0; j < kNr; ++j) c0[j] = c1[j] = _mm512_setzero_ps();
      for (int64_t p = pc; p < pc + kc;) {  // runs of outputs within one row panel of W's
        const int64_t r = p / kMr * kMr, end = std::min(pc + kc, r + kMr);
        const float* const bp = b0 + r / kMr * step + (p - r);
        if (s0 == 0 && r + kAhead * kMr < outputs) {  // W's run kAhead panels on, from memory
          const float* const next = b0 + (r / kMr + kAhead) * step;
          for (int64_t f = 0; f < cols * kMr; f += 16) prefetch(next, f);
        }
        run<kNr>(end - p, ap + (p - pc) * kMr, bp, c0, c1);
        p = end;
      }
      store_tile(c0, c1, t[s0 / kMr], kMr, cols, m0, m1, pc > 0, nullptr);
    }
  }
  // The tiles' rows are samples, columns of out: each sample's row gathered (kMr floats apart)
  // and stored, masked as relu_backward() masks (y > 0 ? dx : 0).
  const __mmask16 m = lanes(cols);
  const __m512i stride = _mm512_mullo_epi32(_mm512_set1_epi32(kMr),
                                            _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
                                                              11, 12, 13, 14, 15));
  for (int64_t s = 0; s < batch; ++s) {
    __m512 v = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, stride,
                                        t[s / kMr] + s % kMr, 4);
    if (o.relu_y) {
      const __m512 y = _mm512_maskz_loadu_ps(m, o.relu_y + j0 + s * o.ld);
      v = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(y, _mm512_setzero_ps(), _CMP_GT_OQ), v);
    }
    _mm512_mask_storeu_ps(o.out + j0 + s * o.ld, m, v);
  }
}

}  // namespace

void input_grad_from_panels(const PackedA& w, const PackedA& dyt, const float* relu_y,
                            float* out, int64_t ld, WorkerPool* pool) {
  const int64_t inputs = w.depth(), batch = dyt.rows(), kb = depth_block(inputs);
  if (dyt.depth() != w.rows() || batch > kMaxPanels * kMr) {
    std::fprintf(stderr, "input_grad_from_panels: unsuitable operands (internal bug)\n");
    std::abort();
  }
  const Operands o{w, dyt, relu_y, out, ld};
  // Each depth block of W's panels (kb inputs) in ceil(kc / 12) nearly equal tiles, none
  // across blocks: a tile's columns are then 32 floats apart.
  const int64_t per_block = ceil_div(kb, kMaxCols), blocks = ceil_div(inputs, kb);
  parallel_for(pool, blocks * per_block, 8, [&](int64_t lo, int64_t hi) {
    for (int64_t u = lo; u < hi; ++u) {
      const int64_t pc = u / per_block * kb, kc = std::min(kb, inputs - pc);
      const int64_t t = u % per_block, tiles = ceil_div(kc, kMaxCols);
      if (t >= tiles) continue;  // a short last block takes fewer tiles
      const int64_t j0 = pc + kc * t / tiles, cols = pc + kc * (t + 1) / tiles - j0;
      with_width<1, kMaxCols>(cols, "input_grad_from_panels",
                              [&](auto n) { tile<decltype(n)::value>(o, j0, cols); });
    }
  });
}
#else
void input_grad_from_panels(const PackedA&, const PackedA&, const float*, float*, int64_t,
                            WorkerPool*) {
  std::fprintf(stderr, "input_grad_from_panels: no AVX-512 in this build (internal bug)\n");
  std::abort();
}
#endif

}  // namespace kp::trainer_detail
