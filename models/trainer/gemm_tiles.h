#pragma once
// Internal to gemm.cpp and gemm_split.cpp (AVX-512 builds only): the blocked product on the
// calling thread, with part `part`'s packing buffers, for the rows and columns of C that a split
// gives one thread. i_off and j_off: where this C starts in the whole product (the coordinates
// a sink receives, and the row of a pre-packed A). Each element is the same chain of FMAs for
// any tile shape, so the values depend only on (m, n, k) and the depth blocking of k.
#include <cstdint>

#include "models/trainer/gemm.h"
#include "models/trainer/gemm_pack.h"

namespace kp::trainer_detail {

constexpr int64_t kNrMax = 12;  // the widest register tile (32 x 12)

// A product split across `parts` threads (gemm_split.cpp) is cut by columns of C in units of
// kSplitCols (a multiple of both tile widths), or by rows in units of kMr. A C with fewer than
// kSplitCols columns and kMr rows per thread is cut by its depth blocks instead, into scratch
// that GemmWorkspace::reserve() provides for exactly these shapes.
constexpr int64_t kSplitCols = 24;
inline bool split_by_depth(int64_t m, int64_t n, int parts) {
  return n < kSplitCols * parts && m < kMr * parts;
}
// Rows when C is narrow, or at least as tall as wide (else columns).
inline bool split_by_rows(int64_t m, int64_t n, int parts) {
  return n < kSplitCols * parts || (m >= n && m >= kMr * parts);
}

void sgemm_tiles(Trans ta, Trans tb, int64_t m, int64_t n, int64_t k, const float* a,
                 int64_t lda, const PackedA* pa, const float* b, int64_t ldb, float* c,
                 int64_t ldc, bool accumulate, GemmWorkspace& ws, TileSink* sink, int64_t i_off,
                 int64_t j_off, int part);

}  // namespace kp::trainer_detail
