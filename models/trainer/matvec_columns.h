#pragma once
// Batch 1's product of a dense layer: y = W x over a range of W's columns, in the order the
// optimizer can reproduce while it writes W (column_panels.h), so that it can form the next
// step's product of the first layer in the same pass over the weights (Network::
// fuse_next_product). Internal to kp_trainer; AVX-512 builds only (sgemm_available()).
#include <cstdint>

namespace kp::trainer_detail {

// The dense layers of at most this many rows (outputs) multiply at batch 1 in column order, and
// only those can have their next product formed by the optimizer. Above, Eigen's product streams
// the wide matrix faster: the Simple CNN's fc1 (1024 rows, 12.8 MB) in column order made a batch-1
// update 29% slower (median of 8 alternating runs, slower in 6). Up to 256 rows one panel of
// registers holds every sum and the walk over W is contiguous (column_panels.h).
constexpr int64_t kColumnOrderMaxRows = 256;

// y[0, rows) = sum over j in [lo, hi) of w[j * rows + i] * x[j] (zero if lo == hi), each y_i one
// fused multiply-add chain over the columns in order, from zero: exactly
// y_i = fma(w_i,hi-1, x_hi-1, ... fma(w_i,lo, x_lo, 0)). rows <= kColumnOrderMaxRows; aborts
// above or without AVX-512.
void matvec_columns(const float* w, int64_t rows, int64_t lo, int64_t hi, const float* x,
                    float* y);

}  // namespace kp::trainer_detail
