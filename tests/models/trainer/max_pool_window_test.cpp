// max_pool_sample_f32 (AVX-512) against the contract written out as a scalar loop here: the
// maximum by `>` from -inf in window order and its index, bit for bit, over shapes with channel
// tails (5, 16, 21, 32 channels), partial windows at a padded border, overlapping windows, and
// inputs with ties, NaN and -inf, some windows all -inf or all NaN, with and without the ReLU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "models/trainer/gemm.h"
#include "models/trainer/max_pool_window.h"

namespace kp {
namespace {

using trainer_detail::PoolGeometry;

void reference(const PoolGeometry& g, const float* x, bool relu, float* y, int32_t* arg) {
  const float low = -std::numeric_limits<float>::infinity();
  for (int64_t oh = 0; oh < g.ho; ++oh)
    for (int64_t ow = 0; ow < g.wo; ++ow)
      for (int64_t j = 0; j < g.c; ++j) {
        float best = low;
        int32_t at = -1;
        for (int64_t kh = 0; kh < g.k; ++kh)
          for (int64_t kw = 0; kw < g.k; ++kw) {
            const int64_t ih = oh * g.s - g.pt + kh, iw = ow * g.s - g.pl + kw;
            if (ih < 0 || ih >= g.h || iw < 0 || iw >= g.w) continue;
            const int32_t i = static_cast<int32_t>((ih * g.w + iw) * g.c + j);
            if (at < 0) at = i;  // the first position, kept if nothing beats -inf
            if (x[i] > best) best = x[i], at = i;
          }
        const int64_t o = (oh * g.wo + ow) * g.c + j;
        y[o] = relu ? (best > 0 ? best : 0.0f) : best;
        arg[o] = at;
      }
}

// Values from a small set, so that windows hold ties; some NaN and -inf; and the first two
// windows of channel 0 made all -inf and all NaN.
std::vector<float> input(const PoolGeometry& g, std::mt19937& rng) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const float pick[] = {-2.0f, -1.0f, -0.0f, 0.0f, 0.5f, 1.0f, 3.0f, nan, -inf};
  std::vector<float> x(static_cast<size_t>(g.c * g.h * g.w));
  std::uniform_int_distribution<int> u(0, 8);
  for (float& v : x) v = pick[u(rng)];
  for (int64_t i = 0; i < g.k && i < g.h; ++i)
    for (int64_t j = 0; j < g.k && j < g.w; ++j) {
      x[static_cast<size_t>((i * g.w + j) * g.c)] = -inf;  // window (0, 0) as far as it reaches
      if (g.wo > 1 && g.s + j < g.w)
        x[static_cast<size_t>((i * g.w + g.s + j) * g.c)] = nan;  // window (0, 1) past the overlap
    }
  return x;
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(MaxPoolWindow, MatchesTheContractBitForBit) {
  if (!trainer_detail::sgemm_available()) GTEST_SKIP() << "AVX-512 kernels not built";
  // {c, h, w, ho, wo, k, s, pt, pl}
  const PoolGeometry shapes[] = {
      {32, 28, 28, 14, 14, 2, 2, 0, 0},  // the Simple CNN's pool1
      {64, 14, 14, 7, 7, 2, 2, 0, 0},    // pool2
      {5, 7, 9, 3, 4, 2, 2, 0, 0},       // a tail of 5 channels, odd sizes: last row unused
      {21, 9, 9, 5, 5, 3, 2, 1, 1},      // same padding, overlapping windows, partial at borders
      {16, 6, 5, 3, 3, 3, 2, 1, 1},
      {3, 8, 8, 1, 1, 8, 8, 0, 0},       // one window of 64 positions (kPoolWindowMax)
  };
  std::mt19937 rng(11);
  for (const PoolGeometry& g : shapes)
    for (const bool relu : {false, true}) {
      const std::vector<float> x = input(g, rng);
      const size_t n = static_cast<size_t>(g.c * g.ho * g.wo);
      std::vector<float> y(n), want_y(n);
      std::vector<int32_t> arg(n, 12345), want_arg(n);
      trainer_detail::max_pool_sample_f32(g, x.data(), relu, y.data(), arg.data());
      reference(g, x.data(), relu, want_y.data(), want_arg.data());
      for (size_t i = 0; i < n; ++i) {
        ASSERT_TRUE(same_bits(y[i], want_y[i]))
            << "c " << g.c << " k " << g.k << " relu " << relu << " at " << i << ": " << y[i]
            << " vs " << want_y[i];
        ASSERT_EQ(arg[i], want_arg[i]) << "c " << g.c << " k " << g.k << " at " << i;
      }
      // The degenerate windows took their first position (channel 0 of windows 0 and 1).
      EXPECT_EQ(arg[0], 0);
      EXPECT_EQ(y[0], relu ? 0.0f : -std::numeric_limits<float>::infinity());
    }
}

}  // namespace
}  // namespace kp
