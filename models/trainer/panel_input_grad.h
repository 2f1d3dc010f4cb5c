#pragma once
// A large dense layer's input gradient dx = W^T dy read from the panels of its forward's product
// (the copy of W the optimizer's update writes, Network::fuse_packed_weights) instead of packing
// W^T from memory. The Simple CNN's fc1 (1024 x 3136, 12.8 MB) read its weights by 16 columns
// at a time 4 KiB apart to pack them, once for the forward (now from the panels) and once here.
// Computed as dx^T = dy^T W: register tiles of 32 samples x up to 12 inputs, whose columns of W
// are 32-output runs of the panels (one panel column each), contiguous and 32 floats apart.
// Each dx element is the same chain of FMAs over the same depth blocks of outputs as
// sgemm(Trans::Yes, Trans::No, ...) over W, added in the same order: the same values, bit for
// bit. Whole Simple CNN steps, in-process A/B against packing W^T: one thread M=32 +3.0% (faster
// in 13 of 16 rounds), M=128 +1.7% (16/20) and +0.9% (15/20), M=256 +-0 (5/8); one trial on two
// threads M=128 +1.3% (12/16). Internal to kp_trainer; AVX-512 builds only (sgemm_available()).
#include <cstdint>

#include "models/trainer/gemm.h"

namespace kp::trainer_detail {

// out (inputs x batch, column-major, leading dimension ld) = W^T dy, masked by relu_y > 0 (the
// ReLU's output below, same layout) if relu_y is not null, as a fused ReLU backward masks it.
// w: W's forward panels (op(A) = W, outputs x inputs); dyt: dy^T packed by
// PackedA::pack(Trans::Yes, batch, outputs, dy, outputs). Split by columns of inputs over the
// pool's threads if a pool is given; the values do not depend on it.
void input_grad_from_panels(const PackedA& w, const PackedA& dyt, const float* relu_y,
                            float* out, int64_t ld, WorkerPool* pool);

}  // namespace kp::trainer_detail
