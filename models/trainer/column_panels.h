#pragma once
// The loop behind batch 1's product y = W x over columns [lo, hi) of a column-major W of at most
// 256 rows (matvec_columns.h), shared by the dense layer's forward and the optimizer's update,
// which forms the next step's product of the first layer while it writes the new weights: each
// y_i one FMA chain over the columns in order, from zero. All rows go in one panel of up to 16
// vectors held in registers across the columns, so the walk over W is one contiguous stream.
// Internal to kp_trainer; AVX-512 only.
#ifdef __AVX512F__
#include <immintrin.h>

#include <cstdint>

namespace kp::trainer_detail {

// kVecs vectors of rows from r0, masked to `rows` (vectors wholly past it are empty):
// vec(j, i, mask) gives W[i, i + 16) of column j as the FMA's operand, end_column(j) follows
// each column.
template <int kVecs, class Vec, class EndColumn>
inline void column_panel(int64_t r0, int64_t rows, int64_t lo, int64_t hi, const float* x,
                         float* y, Vec& vec, EndColumn& end_column) {
  __mmask16 mask[kVecs];
  __m512 acc[kVecs];
  // Every loop over the vectors unrolled: with a variable index anywhere, GCC 12 kept acc in
  // memory and stored it on every column.
#pragma GCC unroll 16
  for (int q = 0; q < kVecs; ++q) {
    const int64_t left = rows - r0 - 16 * q;
    mask[q] = left >= 16 ? __mmask16(0xFFFF)
              : left <= 0 ? __mmask16(0)
                          : __mmask16((1u << left) - 1u);
    acc[q] = _mm512_setzero_ps();
  }
  for (int64_t j = lo; j < hi; ++j) {
    const __m512 xj = _mm512_set1_ps(x[j]);
#pragma GCC unroll 16
    for (int q = 0; q < kVecs; ++q)
      acc[q] = _mm512_fmadd_ps(vec(j, r0 + 16 * q, mask[q]), xj, acc[q]);
    end_column(j);
  }
#pragma GCC unroll 16
  for (int q = 0; q < kVecs; ++q) _mm512_mask_storeu_ps(y + r0 + 16 * q, mask[q], acc[q]);
}

// y[0, rows) = sum over j in [lo, hi) of W[:, j] x[j] (y = 0 if lo == hi) for rows <= 256, in
// one panel: W's vectors given by vec, each column's all visited between two end_column calls
// (the update's squared norm is then summed per column as apart). The panel is the next power of
// two vectors: at most half of it empty.
template <class Vec, class EndColumn>
void one_column_panel(int64_t rows, int64_t lo, int64_t hi, const float* x, float* y, Vec&& vec,
                      EndColumn&& end_column) {
  const int64_t vecs = (rows + 15) / 16;
  if (vecs > 8) return column_panel<16>(0, rows, lo, hi, x, y, vec, end_column);
  if (vecs > 4) return column_panel<8>(0, rows, lo, hi, x, y, vec, end_column);
  if (vecs > 2) return column_panel<4>(0, rows, lo, hi, x, y, vec, end_column);
  if (vecs > 1) return column_panel<2>(0, rows, lo, hi, x, y, vec, end_column);
  column_panel<1>(0, rows, lo, hi, x, y, vec, end_column);
}

}  // namespace kp::trainer_detail
#endif
