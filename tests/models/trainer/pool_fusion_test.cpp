// A convolution followed by a max-pool runs the pool on each chunk of samples it computes
// (conv2d.cpp, layers.h), and the pool takes the ReLU after it (simple_layers.cpp). The first
// against the same network with a second ReLU between them (the trainer moves only the ReLU
// next to the pool after it, so the convolution and the pool stay apart; ReLU twice is ReLU);
// the second against conv -> pool -> flatten -> ReLU (the ReLU on its own in the forward, the
// dense layer after it taking its backward): the loss, every gradient and the input gradient
// bit for bit, and the evaluation.
// conv1 (5 x 5 on 28 x 28) and conv2 (5 x 5 x 4 on 14 x 14) run chunks of 13 samples: batch
// 30 has a last partial chunk; batch 120 splits by chunks across 2 threads (>= 8 chunks), and
// within chunks below that. The second pool's windows overlap (3, stride 2), the scatter path.
#include <gtest/gtest.h>

#include <cstdint>

#include "models/trainer/network.h"
#include "tests/models/trainer/fused_equals_apart.h"
#include "tests/models/trainer/test_networks.h"

namespace kp {
namespace {

ResolvedNetwork cnn(bool apart) {
  using test::layer_spec;
  NetworkSpec s = test::image_spec();
  auto stage = [&](int64_t filters, int64_t pool_kernel) {
    s.layers.push_back(layer_spec(LayerKind::Conv2d, filters, 5, 1, Padding::Same));
    s.layers.push_back(layer_spec(LayerKind::Relu));
    if (apart) s.layers.push_back(layer_spec(LayerKind::Relu));
    s.layers.push_back(layer_spec(LayerKind::MaxPool, 0, pool_kernel, 2));
  };
  stage(4, 2);
  stage(8, 3);
  s.layers.push_back(layer_spec(LayerKind::Flatten));
  s.layers.push_back(layer_spec(LayerKind::Dense, 10));
  s.layers.push_back(layer_spec(LayerKind::SoftmaxCrossEntropy));
  return resolve_network(s);
}

// conv -> ReLU -> pool (relu_first) or conv -> pool -> flatten -> ReLU, then a dense layer.
ResolvedNetwork one_stage(bool relu_first) {
  using test::layer_spec;
  NetworkSpec s;
  s.input = {2, 12, 12};
  s.classes = 10;
  s.layers.push_back(layer_spec(LayerKind::Conv2d, 16, 3, 1, Padding::Same));
  if (relu_first) s.layers.push_back(layer_spec(LayerKind::Relu));
  s.layers.push_back(layer_spec(LayerKind::MaxPool, 0, 2, 2));
  s.layers.push_back(layer_spec(LayerKind::Flatten));
  if (!relu_first) s.layers.push_back(layer_spec(LayerKind::Relu));
  s.layers.push_back(layer_spec(LayerKind::Dense, 10));
  s.layers.push_back(layer_spec(LayerKind::SoftmaxCrossEntropy));
  return resolve_network(s);
}

template <class T>
void expect_same(const ResolvedNetwork& fused, const ResolvedNetwork& apart, int64_t batch,
                 int threads) {
  test::expect_fused_equals_apart<T>(fused, apart, batch, threads, -1.0f);
}

TEST(PoolFusion, FusedNetworkEqualsTheNetworkRunApart) {
  for (int threads : {1, 2}) {
    expect_same<float>(cnn(false), cnn(true), 30, threads);
    expect_same<double>(cnn(false), cnn(true), 30, threads);
  }
  expect_same<float>(cnn(false), cnn(true), 120, 2);
}

TEST(PoolFusion, PoolWithTheReluAfterItEqualsTheReluApart) {
  for (int threads : {1, 2}) {
    expect_same<float>(one_stage(true), one_stage(false), 7, threads);
    expect_same<double>(one_stage(true), one_stage(false), 7, threads);
  }
}

}  // namespace
}  // namespace kp
