#pragma once
// Batch 1's product of a dense layer: y = W x over a range of W's columns, in the order the
// optimizer can reproduce while it writes W (column_panels.h), so that it can form the next
// step's product of the first layer in the same pass over the weights (Network::
// fuse_next_product). Internal to kp_trainer; AVX-512 builds only (sgemm_available()).
#include <cstdint>

namespace kp::trainer_detail {

// y[0, rows) = sum over j in [lo, hi) of w[j * rows + i] * x[j] (zero if lo == hi), each y_i one
// fused multiply-add chain over the columns in order, from zero: exactly
// y_i = fma(w_i,hi-1, x_hi-1, ... fma(w_i,lo, x_lo, 0)). Aborts without AVX-512.
void matvec_columns(const float* w, int64_t rows, int64_t lo, int64_t hi, const float* x,
                    float* y);

}  // namespace kp::trainer_detail
