#pragma once
// Packing of sgemm's operands into the micro-kernel's panel layouts (gemm.cpp), so that the
// kernel reads both operands with unit stride: A in panels of kMr rows, B in panels of kNr
// columns, each stored depth-major and zero-padded; PackedA (gemm.h) is implemented here.
// Internal to kp_trainer; the packing functions exist in AVX-512 builds only.
#include <cstdint>

#include "core/int_math.h"
#include "models/trainer/gemm.h"

namespace kp::trainer_detail {
constexpr int64_t kMr = 32;  // rows of the register tile (two zmm registers)
// The depth block: k split into equal parts of at most kSgemmSingleBlockDepth (784 ->
// 262+262+260, not 320+320+144). It sets every product's summation order.
inline int64_t depth_block(int64_t k) {
  return ceil_div(k, ceil_div(k, kSgemmSingleBlockDepth));
}
}  // namespace kp::trainer_detail

#ifdef __AVX512F__
#include <immintrin.h>

namespace kp::trainer_detail {

// The first n of 16 lanes.
inline __mmask16 lanes(int64_t n) {
  if (n <= 0) return 0;
  if (n >= 16) return 0xFFFF;
  return static_cast<__mmask16>((1u << n) - 1u);
}

// Rows [i0, i0 + mc) of op(A), depth [p0, p0 + kc): panels of kMr rows, each kc x kMr floats.
void pack_a(Trans ta, const float* a, int64_t lda, int64_t i0, int64_t mc, int64_t p0, int64_t kc,
            float* dst);
// Columns [j0, j0 + nc) of op(B), depth [p0, p0 + kc): panels of kNr (8 or 12) columns.
template <int64_t kNr>
void pack_b(Trans tb, const float* b, int64_t ldb, int64_t p0, int64_t kc, int64_t j0, int64_t nc,
            float* dst);

}  // namespace kp::trainer_detail
#endif
