#pragma once
// Layer and network builders for the trainer and step-curve tests (each had its own copy).
#include <cstdint>

#include "core/network_spec.h"

namespace kp::test {

// A layer of `kind`: n units (dense) or filters (conv2d), a square window of `kernel` with
// `stride` and `padding` (conv2d, pools); named after its kind.
inline LayerSpec layer_spec(LayerKind kind, int64_t n = 0, int64_t kernel = 1, int64_t stride = 1,
                            Padding padding = Padding::Valid) {
  LayerSpec l;
  l.kind = kind;
  l.name = layer_kind_name(kind);
  l.units = l.filters = n;
  l.kernel = kernel;
  l.stride = stride;
  l.padding = padding;
  return l;
}

// No layers yet, one 28 x 28 channel in (Fashion-MNIST's images) and `classes` classes out.
inline NetworkSpec image_spec(int64_t classes = 10) {
  NetworkSpec s;
  s.input = {1, 28, 28};
  s.classes = classes;
  return s;
}

// flatten -> dense(hidden) -> ReLU -> dense(classes) -> softmax cross-entropy.
inline ResolvedNetwork tiny_mlp(Shape input, int64_t hidden, int64_t classes) {
  NetworkSpec s;
  s.input = input;
  s.classes = classes;
  s.layers = {layer_spec(LayerKind::Flatten), layer_spec(LayerKind::Dense, hidden),
              layer_spec(LayerKind::Relu), layer_spec(LayerKind::Dense, classes),
              layer_spec(LayerKind::SoftmaxCrossEntropy)};
  return resolve_network(s);
}

}  // namespace kp::test
