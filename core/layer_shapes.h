#pragma once
// The output shape and parameter count of one layer from its input shapes. Contract: throws
// std::invalid_argument with a message that names what does not fit (the caller adds the layer's
// position); `names` are the producers of `in` (for messages naming both ends of a mismatch).
#include <string>
#include <vector>

#include "core/network_spec.h"

namespace kp {

Shape layer_shape(const LayerSpec& l, const std::vector<Shape>& in, const std::vector<std::string>& names,
                  int64_t& params);

// Output k of a split of `in` (the split's own output shape is `in`): the same positions with
// l.sizes[k] features.
Shape split_piece(const LayerSpec& l, const Shape& in, size_t k);

// Window output size: TensorFlow "same" = ceil(in/stride); "valid" = floor((in - span)/stride) + 1
// with span = dilation * (kernel - 1) + 1; explicit padding adds 2 * pad zeros first.
int64_t window_out(int64_t in, int64_t kernel, int64_t stride, Padding padding, int64_t pad, int64_t dilation);

// Heads and widths of an attention layer on `d_model` features.
struct AttentionDims {
  int64_t heads = 0, kv_heads = 0, head_dim = 0;
};
AttentionDims attention_dims(const LayerSpec& l, int64_t d_model);

}  // namespace kp
