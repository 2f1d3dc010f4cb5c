#pragma once
// The input gradient dx = W^T dy of a large dense layer at a small batch, column by column of W
// (dense.cpp): element (j, s) is the dot product of W's column j (contiguous) with dy's column
// s, so the weights stream from memory once, in order, and nothing is packed. The GEMM packed
// W^T block by block for products of 2-8 columns: at M=4 the packing was ~15% of a Simple CNN
// step. Each dot product sums two interleaved 16-lane chains over the rows in order, adds them
// and reduces the lanes in a fixed tree: the values depend only on the shapes, never on the
// threads (a part's columns are whole columns); they differ from the GEMM's in the last bits.
// Simple CNN fc1 (1024 x 3136), steps on one thread, in-process A/B against the GEMM: M=2 +31%,
// 3 +22%, 4 +13%, 6 +5.6% (19-20 of 20 rounds each); 8 -2.6% (7/20), where dy (32 KiB) crowds
// L1, hence the bound on dy. Internal to kp_trainer; AVX-512 builds.
#include <cstdint>

namespace kp::trainer_detail {

constexpr int64_t kColumnGradMaxBatch = 8;
constexpr int64_t kColumnGradMinWeights = int64_t{1} << 20;
constexpr int64_t kColumnGradMaxDyBytes = int64_t{24} << 10;

// Whether the input gradient of a rows x cols (output x input) layer at `batch` goes this way:
// 2 <= batch <= kColumnGradMaxBatch, >= kColumnGradMinWeights weights, dy within
// kColumnGradMaxDyBytes.
bool input_grad_by_columns(int64_t rows, int64_t cols, int64_t batch);

// dx[j + s * ldx] = sum_i w[i + j * rows] dy[i + s * rows] for columns j in [lo, hi) and samples
// s in [0, batch); batch <= kColumnGradMaxBatch.
void input_grad_columns(const float* w, int64_t rows, int64_t lo, int64_t hi, const float* dy,
                        int64_t batch, float* dx, int64_t ldx);

}  // namespace kp::trainer_detail
