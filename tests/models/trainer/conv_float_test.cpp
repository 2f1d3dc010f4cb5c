// The float convolution (AVX-512 sgemm, im2col's fast path for patches of 17-32 floats, weights
// packed once a step) against the same network in double (Eigen, the general im2col): loss,
// every parameter's gradient and the input gradient, for patches that take the fast path
// (5x5x1 as in the Simple CNN's conv1, 4x4x2, 3x3x2, 3x3x3, 1x1x24, 1x1x32) and one that does
// not (3x3x8), with same and valid padding and strides 1 and 2, so a misplaced lane or a
// padding lane left unmasked shows as a wrong gradient.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "models/trainer/network.h"
#include "tests/models/trainer/test_networks.h"

namespace kp {
namespace {

struct Geometry {
  Shape in;
  int64_t filters, kernel, stride;
  Padding padding;
};

void check(const Geometry& g) {
  NetworkSpec s;
  s.input = g.in;
  s.classes = 3;
  s.layers = {test::layer_spec(LayerKind::Conv2d, g.filters, g.kernel, g.stride, g.padding),
              test::layer_spec(LayerKind::Relu), test::layer_spec(LayerKind::Flatten),
              test::layer_spec(LayerKind::Dense, 3),
              test::layer_spec(LayerKind::SoftmaxCrossEntropy)};
  const ResolvedNetwork net = resolve_network(s);
  const int64_t batch = 5;
  Network<float> f(net, batch, 7);
  Network<double> d(net, batch, 7);
  for (int64_t i = 0; i < f.num_params(); ++i) d.params()[i] = f.params()[i];
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1, 1);
  for (int64_t i = 0; i < f.input_elements() * batch; ++i) d.input()[i] = f.input()[i] = u(rng);
  const std::vector<int32_t> labels = {0, 1, 2, 1, 0};
  f.set_compute_input_grad(true);
  d.set_compute_input_grad(true);
  const double lf = f.forward_backward(labels.data(), batch);
  const double ld = d.forward_backward(labels.data(), batch);
  const std::string where = "kernel " + std::to_string(g.kernel) + " x " +
                            std::to_string(g.in.c) + " stride " + std::to_string(g.stride);
  EXPECT_NEAR(lf, ld, 1e-5 * std::abs(ld)) << where;
  // float sums of <= 72 products of terms <= ~1: errors ~1e-6 against gradients ~1e-2..1
  for (int64_t i = 0; i < f.num_params(); ++i)
    ASSERT_NEAR(f.grads()[i], d.grads()[i], 1e-5 + 1e-4 * std::abs(d.grads()[i]))
        << where << ", parameter " << i;
  for (int64_t i = 0; i < f.input_elements() * batch; ++i)
    ASSERT_NEAR(f.input_grad()[i], d.input_grad()[i], 1e-5 + 1e-4 * std::abs(d.input_grad()[i]))
        << where << ", input " << i;
}

TEST(Conv2dFloat, MatchesDoubleForSmallAndLargePatches) {
  check({{1, 9, 9}, 4, 5, 1, Padding::Same});   // 25 floats: the Simple CNN's conv1
  check({{2, 9, 9}, 3, 4, 2, Padding::Same});   // 32, asymmetric padding
  check({{2, 8, 8}, 3, 3, 2, Padding::Valid});  // 18
  check({{3, 7, 7}, 2, 3, 1, Padding::Same});   // 27
  check({{24, 4, 4}, 3, 1, 1, Padding::Valid});  // 1x1 over 24 channels: one 24-float row
  check({{32, 3, 3}, 2, 1, 2, Padding::Same});   // 1x1 over 32 channels, stride 2
  check({{8, 6, 6}, 4, 3, 1, Padding::Same});   // 72: the general im2col
}

}  // namespace
}  // namespace kp
