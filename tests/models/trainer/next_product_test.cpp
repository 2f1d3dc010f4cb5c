// Batch 1: the dense layer's product in column order (matvec_columns.h), and the first layer's
// next product formed inside the optimizer's update (Network::fuse_next_product), which must give
// the values of the product computed apart, bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "models/trainer/gemm.h"
#include "models/trainer/matvec_columns.h"
#include "models/trainer/network.h"
#include "models/trainer/optimizer.h"
#include "tests/models/trainer/random_floats.h"
#include "tests/models/trainer/test_networks.h"

namespace kp {
namespace {

using test::random_floats;

bool same_bits(const float* a, const float* b, int64_t n) {
  return std::memcmp(a, b, sizeof(float) * size_t(n)) == 0;
}

// Row counts from one masked vector to the largest panel (1, 2, 4, 8 and 16 vectors of 16 rows,
// with empty and partly masked vectors; kColumnOrderMaxRows = 256 at most) and column ranges with
// and without an offset: each sum bit for bit the chain of std::fma (a correctly rounded fused
// multiply-add, whatever the compiler makes of it) in column order.
TEST(MatVecColumns, EachSumIsOneFmaChainInColumnOrder) {
  if (!trainer_detail::sgemm_available()) GTEST_SKIP() << "AVX-512 kernels not built";
  for (int64_t rows : {1, 10, 16, 17, 33, 100, 200, 255, 256}) {
    const int64_t cols = 37;
    const std::vector<float> w = random_floats(size_t(rows * cols), 1), x = random_floats(cols, 2);
    for (auto [lo, hi] : {std::pair<int64_t, int64_t>{0, cols}, {5, 23}, {9, 9}}) {
      SCOPED_TRACE("rows " + std::to_string(rows) + ", columns " + std::to_string(lo) + ".." +
                   std::to_string(hi));
      std::vector<float> y(size_t(rows), 42.0f), want(size_t(rows), 0.0f);
      for (int64_t j = lo; j < hi; ++j)
        for (int64_t i = 0; i < rows; ++i)
          want[size_t(i)] = std::fma(w[size_t(j * rows + i)], x[size_t(j)], want[size_t(i)]);
      trainer_detail::matvec_columns(w.data(), rows, lo, hi, x.data(), y.data());
      EXPECT_TRUE(same_bits(y.data(), want.data(), rows));
    }
  }
}

// flatten -> dense(hidden) -> ReLU -> dense(40) -> ReLU -> dense(3) -> softmax, 200 inputs: the
// first layer's 200 x hidden weights in two column parts (matvec_parts.h).
ResolvedNetwork net_200_h_40_3(int64_t hidden) {
  NetworkSpec s;
  s.input = {1, 10, 20};
  s.classes = 3;
  using test::layer_spec;
  s.layers = {layer_spec(LayerKind::Flatten),   layer_spec(LayerKind::Dense, hidden),
              layer_spec(LayerKind::Relu),      layer_spec(LayerKind::Dense, 40),
              layer_spec(LayerKind::Relu),      layer_spec(LayerKind::Dense, 3),
              layer_spec(LayerKind::SoftmaxCrossEntropy)};
  return resolve_network(s);
}

// Two copies of a network trained on the same samples at batch 1, one asking each update for the
// next product, one not: the same losses, squared norms and parameters after every step. Then
// the fused copy's first-layer weights are zeroed after an update: its next loss is still that
// of the updated weights, so the forward really took the update's product. A first layer of more
// than kColumnOrderMaxRows rows is not fused (its forward is Eigen's): the same values still.
void expect_fused_equals_apart(OptimizerKind kind, int threads, int64_t hidden) {
  const ResolvedNetwork net = net_200_h_40_3(hidden);
  Network<float> fused(net, 1, 5, WeightInit::He, threads), apart(net, 1, 5);
  fused.set_defer_weight_grads(true);
  apart.set_defer_weight_grads(true);
  OptimizerSpec spec;
  spec.kind = kind;
  spec.learning_rate = 0.05;
  spec.momentum = 0.9;
  spec.weight_decay = 1e-3;
  Optimizer opt_fused(spec, fused.num_params(), fused.pool()), opt_apart(spec, apart.num_params());
  const int64_t in = fused.input_elements(), steps = 6;
  const std::vector<float> xs = random_floats(size_t(in * (steps + 1)), 7);
  const int32_t labels[] = {0, 2, 1, 1, 0, 2, 1};
  const int64_t first_layer = 200 * hidden;
  for (int64_t t = 0; t <= steps; ++t) {
    SCOPED_TRACE("step " + std::to_string(t));
    std::copy(xs.begin() + t * in, xs.begin() + (t + 1) * in, fused.input());
    std::copy(xs.begin() + t * in, xs.begin() + (t + 1) * in, apart.input());
    const double loss = fused.forward_backward(labels + t, 1);
    ASSERT_EQ(loss, apart.forward_backward(labels + t, 1));
    if (t == steps) break;
    const float* next = xs.data() + (t + 1) * in;
    const bool fuses = hidden <= trainer_detail::kColumnOrderMaxRows;
    ASSERT_EQ(fused.fuse_next_product(next), fuses);
    const auto& df = fused.deferred_weight_grads();
    const auto& da = apart.deferred_weight_grads();
    ASSERT_EQ(opt_fused.step(fused.params(), fused.grads(), t, df.data(), df.size()),
              opt_apart.step(apart.params(), apart.grads(), t, da.data(), da.size()));
    ASSERT_TRUE(same_bits(fused.params(), apart.params(), fused.num_params()));
    if (fuses && t == steps - 1) std::fill(fused.params(), fused.params() + first_layer, 0.0f);
  }
}

TEST(NextProduct, FormedInTheUpdateEqualsTheForwardsOwn) {
  if (!fast_path_available()) GTEST_SKIP() << "a test of the fused fast path";
  if (!trainer_detail::sgemm_available()) GTEST_SKIP() << "AVX-512 kernels not built";
  for (OptimizerKind kind : {OptimizerKind::Sgd, OptimizerKind::Momentum, OptimizerKind::Nesterov})
    for (int threads : {1, 2})
      for (int64_t hidden : {100, 300}) {
        SCOPED_TRACE("optimizer " + std::to_string(int(kind)) + ", " + std::to_string(threads) +
                     " thread(s), " + std::to_string(hidden) + " rows");
        expect_fused_equals_apart(kind, threads, hidden);
      }
}

TEST(NextProduct, OnlyForTheInputLayerAtBatchOne) {
  if (!fast_path_available()) GTEST_SKIP() << "a test of the fused fast path";
  const ResolvedNetwork net = net_200_h_40_3(100);
  Network<float> n(net, 2, 5);
  n.set_defer_weight_grads(true);
  const std::vector<float> x = random_floats(size_t(2 * n.input_elements()), 3);
  std::copy(x.begin(), x.end(), n.input());
  const int32_t labels[] = {0, 1};
  n.forward_backward(labels, 2);
  EXPECT_FALSE(n.fuse_next_product(x.data()));  // batch 2
  n.set_defer_weight_grads(false);
  n.forward_backward(labels, 1);
  EXPECT_FALSE(n.fuse_next_product(x.data()));  // nothing deferred
  n.set_defer_weight_grads(true);
  n.forward_backward(labels, 1);
  EXPECT_EQ(n.fuse_next_product(x.data()), trainer_detail::sgemm_available());
}

}  // namespace
}  // namespace kp
