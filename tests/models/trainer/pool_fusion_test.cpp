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
#include <random>
#include <string>
#include <vector>

#include "models/trainer/network.h"
#include "tests/models/trainer/test_networks.h"

namespace kp {
namespace {

ResolvedNetwork cnn(bool apart) {
  using test::layer_spec;
  NetworkSpec s;
  s.input = {1, 28, 28};
  s.classes = 10;
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
void expect_same(const ResolvedNetwork& fused_net, const ResolvedNetwork& apart_net,
                 int64_t batch, int threads) {
  Network<T> fused(fused_net, batch, 5, WeightInit::He, threads);
  Network<T> apart(apart_net, batch, 5, WeightInit::He, threads);
  ASSERT_EQ(fused.num_params(), apart.num_params());
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> u(-1, 1);
  for (int64_t i = 0; i < fused.input_elements() * batch; ++i)
    fused.input()[i] = apart.input()[i] = T(u(rng));
  std::vector<int32_t> labels;
  for (int64_t n = 0; n < batch; ++n) labels.push_back(int32_t(n % 10));
  fused.set_compute_input_grad(true);
  apart.set_compute_input_grad(true);
  const std::string where = "batch " + std::to_string(batch) + ", " + std::to_string(threads) +
                            " thread(s), " + (sizeof(T) == 4 ? "float" : "double");
  for (int step = 0; step < 2; ++step) {  // the second step starts from updated weights
    ASSERT_EQ(fused.forward_backward(labels.data(), batch),
              apart.forward_backward(labels.data(), batch))
        << where;
    for (int64_t i = 0; i < fused.num_params(); ++i)
      ASSERT_EQ(fused.grads()[i], apart.grads()[i]) << where << ", parameter " << i;
    for (int64_t i = 0; i < fused.input_elements() * batch; ++i)
      ASSERT_EQ(fused.input_grad()[i], apart.input_grad()[i]) << where << ", input " << i;
    for (int64_t i = 0; i < fused.num_params(); ++i) {
      fused.params()[i] -= T(0.1) * fused.grads()[i];
      apart.params()[i] -= T(0.1) * apart.grads()[i];
    }
  }
  int64_t errors_fused = 0, errors_apart = 0;  // evaluation runs the fused forward too
  ASSERT_EQ(fused.evaluate(labels.data(), batch, &errors_fused),
            apart.evaluate(labels.data(), batch, &errors_apart))
      << where;
  EXPECT_EQ(errors_fused, errors_apart) << where;
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
