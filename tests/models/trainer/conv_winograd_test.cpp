// Winograd's F(4x4, 5x5) and F(5x5, 5x5) convolutions (conv_winograd.h) against the direct
// convolution summed in double: the forward, the input gradient and the weight gradient (over
// three samples, in calls of one or two samples, each call's added to the last's), in shapes with
// partial tiles (odd outputs), channels and filters not a multiple of 32 (padded rows), valid and
// same padding, and the Simple CNN's conv2, for both tile sides whichever tile_side() would choose.
// Tolerance: each result is a sum of 25c (or 25f, or 3 * pixels) products; the direct float
// sum errs by ~1e-7 of the sum of their magnitudes. The transforms scale a tile up before the
// products and back (B^T's absolute row sums are at most 15 for 4 x 4 tiles, 212.5 for 5 x 5),
// so the error is larger; it is held to 2e-5 of the magnitudes' sum for 4 x 4 tiles (measured:
// up to 4e-6) and to 1e-4 for 5 x 5 (measured: up to 3.4e-5; winograd_f5.h's simulation gave
// 1.3e-6 on average). A misplaced tile, lane or transform entry errs by the order of the values
// themselves.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/network_spec.h"
#include "models/trainer/conv_winograd.h"
#include "models/trainer/gemm.h"
#include "tests/models/trainer/test_networks.h"

namespace kp {
namespace {

struct Direct {  // the direct convolution's sums and the sums of their terms' magnitudes
  std::vector<double> value, magnitude;
};

void expect_close(const std::vector<float>& got, const Direct& want, const std::string& what,
                  double tolerance) {
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double err = std::abs(got[i] - want.value[i]);
    ASSERT_LE(err, tolerance * want.magnitude[i] + 1e-30) << what << " " << i;
    if (want.magnitude[i] > 0) worst = std::max(worst, err / want.magnitude[i]);
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.2g", worst);
  // In the XML output: 5e-7 .. 4e-6 for 4 x 4 tiles, 2e-6 .. 3.4e-5 for 5 x 5.
  ::testing::Test::RecordProperty(what, text);
}

// Three samples, in calls of up to `per_call` samples: with 1, the last backward without dx (its
// dx must stay untouched); with 2, the last call of one sample.
void check(int tile, int64_t per_call, Shape in, int64_t filters, Padding padding) {
  using trainer_detail::WinogradConv;
  NetworkSpec s;
  s.input = in;
  s.classes = 2;
  s.layers = {test::layer_spec(LayerKind::Conv2d, filters, 5, 1, padding),
              test::layer_spec(LayerKind::Flatten), test::layer_spec(LayerKind::Dense, 2),
              test::layer_spec(LayerKind::SoftmaxCrossEntropy)};
  const ResolvedLayer l = resolve_network(s).layers[0];
  ASSERT_TRUE(WinogradConv::suits(l));
  const int64_t c = in.c, h = in.h, w = in.w, f = filters, ho = l.out.h, wo = l.out.w;
  // Same padding: the excess split with the smaller half first (TensorFlow's rule, as layers.h).
  const int64_t pt = padding == Padding::Same ? (ho + 4 - h) / 2 : 0;
  const int64_t pl = padding == Padding::Same ? (wo + 4 - w) / 2 : 0;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1, 1);
  auto random = [&](int64_t n) {
    std::vector<float> v(static_cast<size_t>(n));
    for (float& e : v) e = u(rng);
    return v;
  };
  constexpr int64_t kSamples = 3;
  const int64_t in_floats = h * w * c, out_floats = ho * wo * f;
  const std::vector<float> x = random(kSamples * in_floats), wt = random(f * 25 * c),
                           dy = random(kSamples * out_floats);
  // Element indices: x and dx HWC, y and dy (pixel, filter), W (filter, kh, kw, channel).
  auto xi = [&](int64_t n, int64_t i, int64_t j, int64_t ch) {
    return ((n * h + i) * w + j) * c + ch;
  };
  auto wi = [&](int64_t o, int64_t kh, int64_t kw, int64_t ch) {
    return o + f * ((kh * 5 + kw) * c + ch);
  };
  Direct y{std::vector<double>(dy.size()), {}};
  Direct dx{std::vector<double>(x.size()), {}}, dw{std::vector<double>(wt.size()), {}};
  y.magnitude = y.value;
  dx.magnitude = dx.value;
  dw.magnitude = dw.value;
  for (int64_t n = 0; n < kSamples; ++n)
    for (int64_t oy = 0; oy < ho; ++oy)
      for (int64_t ox = 0; ox < wo; ++ox)
        for (int64_t o = 0; o < f; ++o)
          for (int64_t kh = 0; kh < 5; ++kh)
            for (int64_t kw = 0; kw < 5; ++kw) {
              const int64_t i = oy + kh - pt, j = ox + kw - pl;
              if (i < 0 || i >= h || j < 0 || j >= w) continue;
              const size_t out = static_cast<size_t>(n * out_floats + (oy * wo + ox) * f + o);
              const double g = dy[out];
              for (int64_t ch = 0; ch < c; ++ch) {
                const size_t at = static_cast<size_t>(xi(n, i, j, ch));
                const double xv = x[at];
                const double wv = wt[static_cast<size_t>(wi(o, kh, kw, ch))];
                y.value[out] += xv * wv;
                y.magnitude[out] += std::abs(xv * wv);
                dx.value[at] += g * wv;
                dx.magnitude[at] += std::abs(g * wv);
                dw.value[static_cast<size_t>(wi(o, kh, kw, ch))] += g * xv;
                dw.magnitude[static_cast<size_t>(wi(o, kh, kw, ch))] += std::abs(g * xv);
              }
            }
  const std::unique_ptr<WinogradConv> made = WinogradConv::make(l, per_call, tile);
  WinogradConv& conv = *made;
  ASSERT_EQ(conv.samples(), per_call);
  WinogradConv::Scratch scratch = conv.make_scratch();
  conv.set_weights(wt.data());
  std::vector<float> got_y(y.value.size(), -7.0f), got_dx(dx.value.size(), -7.0f),
      got_dw(dw.value.size(), -7.0f), du(static_cast<size_t>(conv.du_floats()), -7.0f);
  const bool last_without_dx = per_call == 1;
  for (int64_t n0 = 0; n0 < kSamples; n0 += per_call) {
    const int64_t nb = std::min(per_call, kSamples - n0);
    conv.forward(x.data() + n0 * in_floats, got_y.data() + n0 * out_floats, nb, nullptr, scratch);
    const bool dx_here = !(last_without_dx && n0 + nb == kSamples);
    conv.backward(x.data() + n0 * in_floats, dy.data() + n0 * out_floats, du.data(), n0 > 0,
                  dx_here ? got_dx.data() + n0 * in_floats : nullptr, nb, scratch);
  }
  conv.weight_grad(du.data(), got_dw.data());
  // With a bias: each output as without, rounded, then its filter's bias added.
  std::vector<float> bias(static_cast<size_t>(f)), got_yb(got_y.size());
  for (size_t o = 0; o < bias.size(); ++o) bias[o] = 0.25f * static_cast<float>(o) - 3.0f;
  for (int64_t n0 = 0; n0 < kSamples; n0 += per_call)
    conv.forward(x.data() + n0 * in_floats, got_yb.data() + n0 * out_floats,
                 std::min(per_call, kSamples - n0), bias.data(), scratch);
  for (size_t i = 0; i < got_y.size(); ++i)
    ASSERT_EQ(got_yb[i], got_y[i] + bias[i % static_cast<size_t>(f)]) << "bias, " << i;
  const std::string where = "tiles " + std::to_string(tile) + ", " + std::to_string(per_call) +
                            " a call, " + std::to_string(c) + "x" + std::to_string(h) + "x" +
                            std::to_string(w) + ", " + std::to_string(f) + " filters:";
  const double tolerance = tile == 4 ? 2e-5 : 1e-4;
  expect_close(got_y, y, where + " y", tolerance);
  expect_close(got_dw, dw, where + " dW", tolerance);
  if (last_without_dx) {  // the last sample's dx untouched; the others' compared
    const auto computed = static_cast<size_t>((kSamples - 1) * in_floats);
    for (size_t i = computed; i < got_dx.size(); ++i) ASSERT_EQ(got_dx[i], -7.0f) << where << i;
    got_dx.resize(computed);
    dx.value.resize(computed);
    dx.magnitude.resize(computed);
  }
  expect_close(got_dx, dx, where + " dx", tolerance);
}

TEST(WinogradConv, MatchesTheDirectConvolutionInDouble) {
  if (!trainer_detail::sgemm_available()) GTEST_SKIP() << "no AVX-512 sgemm in this build";
  for (int tile : {4, 5})
    for (int64_t per_call : {1, 2}) {
      // The Simple CNN's conv2 (its last tiles partial).
      check(tile, per_call, {32, 14, 14}, 64, Padding::Same);
      // Odd outputs: partial tiles; 8 channels padded.
      check(tile, per_call, {8, 9, 11}, 8, Padding::Same);
      // 8 x 9 outputs; 40 filters (a masked block).
      check(tile, per_call, {20, 12, 13}, 40, Padding::Valid);
      // 48 channels (a padded block), 33 filters.
      check(tile, per_call, {48, 7, 7}, 33, Padding::Same);
    }
}

// Products per channel pair, ceil(ho / m) ceil(wo / m) (m + 4)^2, by hand: 14 x 14: 16 x 64 = 1024
// against 9 x 81 = 729; 28 x 28: 3136 against 2916; 8 x 8: 256 against 324; 7 x 9: 6 x 64 = 384
// against 4 x 81 = 324; 36 x 36: 81 x 64 = 5184 = 64 x 81, a tie.
TEST(WinogradConv, TileSideTakesTheFewerProducts) {
  using trainer_detail::WinogradConv;
  EXPECT_EQ(WinogradConv::tile_side(14, 14), 5);
  EXPECT_EQ(WinogradConv::tile_side(28, 28), 5);
  EXPECT_EQ(WinogradConv::tile_side(8, 8), 4);
  EXPECT_EQ(WinogradConv::tile_side(7, 9), 5);
  EXPECT_EQ(WinogradConv::tile_side(36, 36), 4);
}

}  // namespace
}  // namespace kp
