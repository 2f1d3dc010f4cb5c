#pragma once
// The reference path's layers for the kinds a ResolvedNetwork names: each forward and backward
// written plainly, products on Eigen (single-threaded: no OpenMP in this build), every sum in a
// fixed order (Eigen's product for a given shape, loops in index order), so the same seed gives
// the same bits on any thread count. These are what new layers are written for first; the fused
// layers (fused_layer.h) are the optional fast path, tested against these. Internal to kp_trainer.
#include <cstdint>
#include <memory>

#include "core/network_spec.h"
#include "models/trainer/layers.h"

namespace kp::trainer_detail {

// y = W x (+ b), W column-major (outputs x inputs), weights then bias: the fused layer's layout.
template <class T>
std::unique_ptr<Layer<T>> make_reference_dense(int64_t inputs, int64_t outputs, bool bias);
// im2col + GEMM in chunks of samples; W (filters x k*k*c, (kh, kw, c) order) then bias.
template <class T>
std::unique_ptr<Layer<T>> make_reference_conv2d(const ResolvedLayer& layer);
// The reference layer of each kind (dense, conv2d, max_pool (the first maximum of a window
// wins), relu, flatten, batch_norm), its buffers sized for max_batch samples. Throws
// std::invalid_argument for a kind the trainer does not implement.
template <class T>
std::unique_ptr<Layer<T>> make_reference_layer(const ResolvedLayer& layer, int64_t max_batch);

}  // namespace kp::trainer_detail
