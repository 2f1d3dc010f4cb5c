// A large A read in place (n <= 24, m x k >= 2^20 floats) goes by sub-blocks of the depth across
// all rows (gemm_streamed_a.h). Its values must be the kernel's: for every element, one float
// FMA chain from zero over each depth block in order, each block's chain added to C (or the
// first one stored, without accumulation). The reference computes exactly that with std::fma,
// so any reordering, a lost partial sum between sub-blocks or a misplaced tile fails bit for
// bit. Shapes: a partial last row panel (1030 rows), tile widths 4, 8 and 12 with partial
// tiles, 4 depth blocks of 275 (17 sub-blocks of 16 and one of 3), B in both layouts, C
// accumulated or not, and the tiles handed to a sink.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "models/trainer/gemm.h"
#include "models/trainer/gemm_pack.h"
#include "models/trainer/gemm_streamed_a.h"
#include "tests/models/trainer/collecting_sink.h"

namespace kp::trainer_detail {
namespace {

TEST(SgemmStreamedA, IsOneFmaChainPerDepthBlockBitForBit) {
  if (!sgemm_available()) GTEST_SKIP() << "built without AVX-512";
  const int64_t m = 1030, k = 1100, kb = depth_block(k);
  ASSERT_EQ(kb, 275);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> a(size_t(m * k));
  for (float& v : a) v = u(rng);
  for (int64_t n : {3, 13, 24})
    for (Trans tb : {Trans::No, Trans::Yes}) {
      std::vector<float> b(size_t(k * n)), c0(size_t(m * n));
      for (float& v : b) v = u(rng);
      for (float& v : c0) v = u(rng);
      const int64_t ldb = tb == Trans::No ? k : n;
      auto op_b = [&](int64_t p, int64_t j) {
        return tb == Trans::No ? b[size_t(p + j * k)] : b[size_t(j + p * n)];
      };
      GemmWorkspace ws;
      ws.reserve(m, n, k);
      ASSERT_TRUE(streams_a(m, k, n, 12, ws.a_floats())) << "n " << n;
      for (bool acc : {false, true}) {
        std::vector<float> want = c0, got = c0, scratch = c0;
        for (int64_t j = 0; j < n; ++j)
          for (int64_t i = 0; i < m; ++i) {
            float& w = want[size_t(i + j * m)];
            for (int64_t p0 = 0; p0 < k; p0 += kb) {
              float chain = 0;
              for (int64_t p = p0; p < std::min(k, p0 + kb); ++p)
                chain = std::fma(a[size_t(i + p * m)], op_b(p, j), chain);
              w = acc || p0 > 0 ? w + chain : chain;
            }
          }
        sgemm(Trans::No, tb, m, n, k, a.data(), m, b.data(), ldb, got.data(), m, acc, ws);
        test::CollectingSink sink(m, n);
        sgemm(Trans::No, tb, m, n, k, a.data(), m, b.data(), ldb, scratch.data(), m, acc, ws,
              &sink);
        for (size_t e = 0; e < want.size(); ++e) {
          ASSERT_EQ(got[e], want[e]) << "n " << n << " acc " << acc << " at " << e;
          ASSERT_EQ(sink.hits[e], 1) << "n " << n << " at " << e;
          ASSERT_EQ(sink.values[e], want[e]) << "n " << n << " acc " << acc << " at " << e;
        }
      }
    }
}

}  // namespace
}  // namespace kp::trainer_detail
