// The blocked product's tile shapes (gemm_tiles.h, gemm.cpp): a last column tile of 1-11
// columns (a narrower kernel for <= 4 or <= 8 of them) gives each element the bits it has inside
// a full tile: C's first 48 + t columns against the same columns of the product with 60 (five
// full tiles of 12), for B packed or read in place (m <= 64), B transposed or not, and several
// depth blocks.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "models/trainer/gemm.h"

namespace kp::trainer_detail {
namespace {

std::vector<float> uniform(int64_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = u(rng);
  return v;
}

TEST(SgemmTiles, LastPartialTileIsBitIdenticalToAFullTile) {
  if (!sgemm_available()) GTEST_SKIP() << "built without AVX-512";
  const int64_t shapes[][2] = {{40, 700}, {100, 37}, {256, 784}};  // m, k
  std::mt19937 rng(13);
  for (const auto& s : shapes)
    for (Trans tb : {Trans::No, Trans::Yes}) {
      const int64_t m = s[0], k = s[1], wide = 60;
      const std::vector<float> a = uniform(m * k, rng), b = uniform(k * wide, rng),
                               c0 = uniform(m * wide, rng);
      GemmWorkspace ws;
      ws.reserve(m, wide, k);
      std::vector<float> full = c0;
      const int64_t ldb = tb == Trans::No ? k : wide;  // B's columns j < n are the same in both
      sgemm(Trans::No, tb, m, wide, k, a.data(), m, b.data(), ldb, full.data(), m, true, ws);
      for (int64_t t = 1; t < 12; ++t) {
        const int64_t n = 48 + t;
        std::vector<float> part = c0;
        sgemm(Trans::No, tb, m, n, k, a.data(), m, b.data(), ldb, part.data(), m, true, ws);
        for (int64_t i = 0; i < m * n; ++i)
          ASSERT_EQ(part[size_t(i)], full[size_t(i)])
              << "m " << m << " k " << k << " n " << n << " at " << i;
      }
    }
}

}  // namespace
}  // namespace kp::trainer_detail
