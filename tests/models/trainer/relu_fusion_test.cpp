// A dense layer next to a ReLU does the ReLU's work in its product's epilogue (network.cpp,
// layers.h). Against the same network with a flatten (which computes nothing) on either side of
// each ReLU, where nothing is fused: the loss, every gradient and the input gradient
// bit for bit, at batch 1 (no epilogue: the loops after the matrix-vector products), 16 and 100
// (the epilogues; 784 inputs: two depth blocks, so the product's scratch holds partial sums),
// on one thread and on two (tiles delivered by both threads), float and double.
#include <gtest/gtest.h>

#include <cstdint>

#include "models/trainer/network.h"
#include "tests/models/trainer/fused_equals_apart.h"
#include "tests/models/trainer/test_networks.h"

namespace kp {
namespace {

ResolvedNetwork mlp(bool flatten_between) {
  using test::layer_spec;
  NetworkSpec s = test::image_spec();
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
  test::expect_fused_equals_apart<T>(mlp(false), mlp(true), batch, threads, 0.0f);
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
