// The implicit-GEMM forward and weight gradient of a stride-1 convolution (conv_gemm.h) against
// sgemm() over im2col's columns: every value equal bit for bit (the same FMA chains over the same
// depth blocks). Forward shapes: the Simple CNN's conv2; outputs 16 and 30 pixels wide (tiles
// of 14 and a narrower last one); filters not a multiple of 32 (masked rows); kernel rows
// crossing depth blocks (7 x 7 x 20: runs of 140 floats, blocks of 245); runs of 27 floats; one
// channel (the Simple CNN's conv1: runs of 5 floats); valid and same padding.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/network_spec.h"
#include "models/trainer/aligned_vector.h"
#include "models/trainer/conv_gemm.h"
#include "models/trainer/gemm.h"
#include "models/trainer/im2col.h"
#include "tests/models/trainer/random_floats.h"
#include "tests/models/trainer/test_networks.h"

namespace kp {
namespace {

using trainer_detail::ImplicitConv;
using trainer_detail::Trans;

ResolvedNetwork conv_net(Shape in, int64_t filters, int64_t kernel, Padding padding) {
  NetworkSpec s;
  s.input = in;
  s.classes = 2;
  s.layers = {test::layer_spec(LayerKind::Conv2d, filters, kernel, 1, padding),
              test::layer_spec(LayerKind::Flatten), test::layer_spec(LayerKind::Dense, 2),
              test::layer_spec(LayerKind::SoftmaxCrossEntropy)};
  return resolve_network(s);
}

using test::random_floats;

void expect_same_as_im2col(Shape in, int64_t filters, int64_t kernel, Padding padding) {
  const ResolvedNetwork net = conv_net(in, filters, kernel, padding);
  const ResolvedLayer& l = net.layers[0];
  ASSERT_TRUE(ImplicitConv::suits(l));
  const int64_t kk = kernel * kernel * in.c, pixels = l.out.h * l.out.w;
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> x(static_cast<size_t>(in.elements())), w(static_cast<size_t>(filters * kk));
  for (float& v : x) v = u(rng);
  for (float& v : w) v = u(rng);
  trainer_detail::PackedA packed;
  packed.reserve(filters, kk);
  packed.pack(Trans::No, filters, kk, w.data(), filters);
  // The reference: im2col's columns, then the product with the same packed weights.
  std::vector<float> cols(static_cast<size_t>(kk * pixels));
  std::vector<float> want(static_cast<size_t>(filters * pixels));
  trainer_detail::Im2col<float>(l).to_columns(x.data(), 0, 1, cols.data(), nullptr);
  trainer_detail::GemmWorkspace ws;
  ws.reserve(filters, pixels, kk);
  trainer_detail::sgemm(packed, Trans::No, pixels, cols.data(), kk, want.data(), filters, false,
                        ws);
  const ImplicitConv conv(l);
  AlignedVector<float> padded(static_cast<size_t>(conv.padded_floats()), 0.0f);
  std::vector<float> got(want.size(), -7.0f);
  conv.pad(x.data(), padded.data());
  conv.forward(packed, padded.data(), got.data(), nullptr);
  const std::string where = std::to_string(in.c) + "x" + std::to_string(in.h) + "x" +
                            std::to_string(in.w) + ", " + std::to_string(filters) +
                            " filters, kernel " + std::to_string(kernel);
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], want[i]) << where << ", " << i;
  // With a bias: each product rounded, then its filter's bias added (in registers after a single
  // depth block, by a second pass over the tile after several).
  std::vector<float> bias(static_cast<size_t>(filters));
  for (float& v : bias) v = u(rng);
  conv.forward(packed, padded.data(), got.data(), bias.data());
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(got[i], want[i] + bias[i % static_cast<size_t>(filters)]) << where << ", bias " << i;
}

TEST(ImplicitConv, SameValuesAsSgemmOverIm2colColumns) {
  if (!trainer_detail::sgemm_available()) GTEST_SKIP() << "no AVX-512 sgemm in this build";
  expect_same_as_im2col({32, 14, 14}, 64, 5, Padding::Same);  // the Simple CNN's conv2
  expect_same_as_im2col({16, 20, 20}, 20, 5, Padding::Valid);  // 16 wide: 14 + 2; 20 rows
  expect_same_as_im2col({12, 30, 30}, 40, 3, Padding::Same);   // 30 wide: 14 + 14 + 2
  expect_same_as_im2col({20, 12, 12}, 33, 7, Padding::Same);   // runs across depth blocks
  expect_same_as_im2col({8, 9, 11}, 8, 1, Padding::Valid);     // 1 x 1, 11 wide (12 columns)
  expect_same_as_im2col({8, 6, 7}, 8, 4, Padding::Same);       // even kernel: uneven padding
  expect_same_as_im2col({9, 10, 10}, 16, 3, Padding::Same);    // kernel rows of 27 floats
  expect_same_as_im2col({1, 28, 28}, 32, 5, Padding::Same);    // the Simple CNN's conv1
  expect_same_as_im2col({1, 13, 17}, 7, 3, Padding::Valid);    // one channel, runs of 3 floats
}

// The weight gradient of `samples` samples, g = (g if accumulate) + dy cols^T.
void expect_grad_same_as_im2col(Shape in, int64_t filters, int64_t kernel, Padding padding,
                                int64_t samples, bool accumulate) {
  const ResolvedNetwork net = conv_net(in, filters, kernel, padding);
  const ResolvedLayer& l = net.layers[0];
  ASSERT_TRUE(ImplicitConv::suits(l));
  const int64_t kk = kernel * kernel * in.c, q = l.out.h * l.out.w * samples;
  const std::vector<float> x = random_floats(size_t(in.elements() * samples), 7),
                           dy = random_floats(size_t(filters * q), 8);
  std::vector<float> want = random_floats(size_t(filters * kk), 9), got = want;
  std::vector<float> cols(static_cast<size_t>(kk * q));
  trainer_detail::Im2col<float>(l).to_columns(x.data(), 0, samples, cols.data(), nullptr);
  trainer_detail::GemmWorkspace ws;
  ws.reserve(filters, kk, q);
  trainer_detail::sgemm(Trans::No, Trans::Yes, filters, kk, q, dy.data(), filters, cols.data(),
                        kk, want.data(), filters, accumulate, ws);
  const ImplicitConv conv(l);
  AlignedVector<float> padded(static_cast<size_t>(conv.padded_floats() * samples), 0.0f);
  for (int64_t s = 0; s < samples; ++s)
    conv.pad(x.data() + s * in.elements(), padded.data() + s * conv.padded_floats());
  conv.weight_grad(padded.data(), samples, dy.data(), got.data(), accumulate);
  const std::string where = std::to_string(in.c) + "x" + std::to_string(in.h) + "x" +
                            std::to_string(in.w) + ", " + std::to_string(filters) +
                            " filters, kernel " + std::to_string(kernel) + ", " +
                            std::to_string(samples) + " samples";
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], want[i]) << where << ", " << i;
}

// The Simple CNN's conv1 over a chunk of 13 samples (10192 pixels: depth blocks of 319 across
// output rows and samples; columns in tiles of 13 + 12), stored and accumulated; one channel
// with masked rows (7 filters); several channels: 72 columns in 6 tiles of 12, 108 in 8 of 13
// and 14 over two row panels (40 filters), one sample of 20 x 20 (400 pixels: two blocks).
TEST(ImplicitConv, WeightGradientSameAsSgemmOverIm2colColumns) {
  if (!trainer_detail::sgemm_available()) GTEST_SKIP() << "no AVX-512 sgemm in this build";
  expect_grad_same_as_im2col({1, 28, 28}, 32, 5, Padding::Same, 13, false);
  expect_grad_same_as_im2col({1, 28, 28}, 32, 5, Padding::Same, 13, true);
  expect_grad_same_as_im2col({1, 13, 17}, 7, 3, Padding::Valid, 5, true);
  expect_grad_same_as_im2col({8, 9, 11}, 8, 3, Padding::Same, 3, false);
  expect_grad_same_as_im2col({12, 30, 30}, 40, 3, Padding::Same, 2, true);
  expect_grad_same_as_im2col({16, 20, 20}, 20, 5, Padding::Same, 1, false);
}

}  // namespace
}  // namespace kp
