#include "models/trainer/gemm_pack.h"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "models/trainer/transpose16.h"
#include "models/trainer/worker_pool.h"

#ifdef __AVX512F__
#include <algorithm>

// GCC 12's own intrinsics (_mm512_undefined_ps inside the masked loads) trip -Wuninitialized.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace kp::trainer_detail {

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

template void pack_b<4>(Trans, const float*, int64_t, int64_t, int64_t, int64_t, int64_t, float*);
template void pack_b<8>(Trans, const float*, int64_t, int64_t, int64_t, int64_t, int64_t, float*);
template void pack_b<12>(Trans, const float*, int64_t, int64_t, int64_t, int64_t, int64_t, float*);

void PackedA::reserve(int64_t m, int64_t k) {
  const auto need =
      static_cast<size_t>(round_up(std::max<int64_t>(m, 0), kMr) * std::max<int64_t>(k, 0));
  if (need > m_data.size()) m_data.assign(need, 0.0f);
}

bool PackedA::reserved_for(int64_t m, int64_t k) const {
  return round_up(m, kMr) * k <= static_cast<int64_t>(m_data.size());
}

// Depth block after depth block, all rows at once: block [p0, p0 + kc) starts at p0 x
// round_up(m, kMr) floats (every earlier block is that many rows deep), its row panels kc x kMr
// floats apart, each laid out as pack_a() lays out a workspace block.
void PackedA::pack(Trans ta, int64_t m, int64_t k, const float* a, int64_t lda,
                   WorkerPool* pool) {
  set_shape(m, k);
  if (m < 1 || k < 1) return;
  const int64_t kb = depth_block(k);
  // Panels split across the pool's threads (each writes its own), as the products would split
  // the packing they did themselves.
  parallel_for(pool, ceil_div(m, kMr), 2, [&](int64_t lo, int64_t hi) {
    const int64_t r0 = lo * kMr, rows = std::min(hi * kMr, m) - r0;
    if (rows < 1) return;
    for (int64_t pc = 0; pc < k; pc += kb) {
      const int64_t kc = std::min(kb, k - pc);
      pack_a(ta, a, lda, r0, rows, pc, kc, m_data.data() + pc * round_up(m, kMr) + r0 * kc);
    }
  });
}

const float* PackedA::panels(int64_t p0, int64_t kc, int64_t r) const {
  return m_data.data() + p0 * round_up(m_m, kMr) + r * kc;
}

void PackedA::set_shape(int64_t m, int64_t k) {
  if (!reserved_for(m, k)) {
    std::fprintf(stderr, "PackedA: not reserved for %lld x %lld (internal bug)\n",
                 static_cast<long long>(m), static_cast<long long>(k));
    std::abort();
  }
  m_m = m;
  m_k = k;
}

const float* PackedA::column(int64_t r, int64_t p, int64_t* run) const {
  const int64_t kb = depth_block(m_k), pc = p / kb * kb, kc = std::min(kb, m_k - pc);
  if (run) *run = pc + kc - p;
  return m_data.data() + pc * round_up(m_m, kMr) + r * kc + (p - pc) * kMr;
}

int64_t PackedA::panel_step(int64_t p) const {
  const int64_t kb = depth_block(m_k);
  return kMr * std::min(kb, m_k - p / kb * kb);  // a panel: kMr floats for each step of its block
}

}  // namespace kp::trainer_detail
#else  // no AVX-512: the layers use Eigen's product instead

namespace kp::trainer_detail {

void PackedA::reserve(int64_t, int64_t) {}
bool PackedA::reserved_for(int64_t, int64_t) const { return false; }
void PackedA::pack(Trans, int64_t, int64_t, const float*, int64_t, WorkerPool*) {
  throw std::logic_error("PackedA: built without AVX-512 (check sgemm_available())");
}
const float* PackedA::panels(int64_t, int64_t, int64_t) const { return nullptr; }
void PackedA::set_shape(int64_t, int64_t) {
  throw std::logic_error("PackedA: built without AVX-512 (check sgemm_available())");
}
const float* PackedA::column(int64_t, int64_t, int64_t*) const { return nullptr; }
int64_t PackedA::panel_step(int64_t) const { return 0; }

}  // namespace kp::trainer_detail
#endif
