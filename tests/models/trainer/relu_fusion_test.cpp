// A dense layer next to a ReLU does the ReLU's work in its product's epilogue (network.cpp,
// layers.h). Against the same network with a flatten (which computes nothing) on either side of
// each ReLU, where nothing is fused: the loss, every gradient and the input gradient
// bit for bit, at batch 1 (no epilogue: the loops after the matrix-vector products), 16 and 100
// (the epilogues; 784 inputs: two depth blocks, so the product's scratch holds partial sums),
// on one thread and on two (tiles delivered by both threads), float and double.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "models/trainer/network.h"
#include "tests/models/trainer/test_networks.h"

namespace kp {
namespace {

ResolvedNetwork mlp(bool flatten_between) {
  using test::layer_spec;
  NetworkSpec s;
  s.input = {1, 28, 28};
  s.classes = 10;
  s.layers.push_back(layer_spec(LayerKind::Flatten));
  for (int64_t units : {64, 48}) {
    s.layers.push_back(layer_spec(LayerKind::Dense, units));
    if (flatten_between) s.layers.push_back(layer_spec(LayerKind::Flatten));
    s.layers.push_back(layer_spec(LayerKind::Relu));
    if (flatten_between) s.layers.push_back(layer_spec(LayerKind::Flatten));
  }
  s.layers.push_back(layer_spec(LayerKind::Dense, 10));
  s.layers.push_back(layer_spec(LayerKind::SoftmaxCrossEntropy));
  return resolve_network(s);
}

template <class T>
void expect_fused_equals_apart(int64_t batch, int threads) {
  Network<T> fused(mlp(false), batch, 5, WeightInit::He, threads);
  Network<T> apart(mlp(true), batch, 5, WeightInit::He, threads);
  ASSERT_EQ(fused.num_params(), apart.num_params());
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> u(0, 1);
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
}

TEST(ReluFusion, FusedNetworkEqualsTheNetworkRunApart) {
  for (int64_t batch : {1, 16, 100})
    for (int threads : {1, 2}) {
      expect_fused_equals_apart<float>(batch, threads);
      expect_fused_equals_apart<double>(batch, threads);
    }
}

}  // namespace
}  // namespace kp
