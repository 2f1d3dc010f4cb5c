#pragma once
// The convolution layer (im2col + GEMM; conv2d.cpp, im2col.h; the forward at stride 1 with at
// least 8 channels as an implicit GEMM on a single thread, conv_gemm.h; 5 x 5 at stride 1 over
// at least 8 channels by Winograd's F(4x4, 5x5) instead, conv_winograd.h). With a worker pool in
// the workspace, chunks of samples (or, with few chunks, each chunk's products, im2col and
// col2im) split across the pool's threads, each value computed as on one thread. Internal to
// kp_trainer.
#include <memory>

#include "models/trainer/fused_layer.h"

namespace kp::trainer_detail {

template <class T>
std::unique_ptr<FusedLayer<T>> make_conv2d(const ResolvedLayer& layer, int64_t max_batch,
                                      GemmWorkspace* ws);

}  // namespace kp::trainer_detail
