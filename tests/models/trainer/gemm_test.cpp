// The trainer's AVX-512 sgemm against a naive triple loop in double: every transpose combination,
// sizes that leave partial register tiles and depth blocks, leading dimensions larger than the
// matrix, and accumulation into C.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "models/trainer/gemm.h"
#include "models/trainer/worker_pool.h"
#include "tests/models/trainer/collecting_sink.h"

namespace kp::trainer_detail {
namespace {

struct Case {
  Trans ta, tb;
  int64_t m, n, k;
  bool accumulate;
};

// `reserved`: the (m, n, k) the workspace is reserved for, if larger than the product's.
void check(const Case& c, const Case* reserved = nullptr) {
  const int64_t pad = 3;  // leading dimensions exceed the stored rows
  const int64_t a_rows = c.ta == Trans::No ? c.m : c.k, a_cols = c.ta == Trans::No ? c.k : c.m;
  const int64_t b_rows = c.tb == Trans::No ? c.k : c.n, b_cols = c.tb == Trans::No ? c.n : c.k;
  const int64_t lda = a_rows + pad, ldb = b_rows + pad, ldc = c.m + pad;
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> a(size_t(lda * a_cols)), b(size_t(ldb * b_cols)), cm(size_t(ldc * c.n));
  for (float& v : a) v = u(rng);
  for (float& v : b) v = u(rng);
  for (float& v : cm) v = u(rng);
  const std::vector<float> c0 = cm;
  auto op_a = [&](int64_t i, int64_t p) {
    return double(c.ta == Trans::No ? a[size_t(i + p * lda)] : a[size_t(p + i * lda)]);
  };
  auto op_b = [&](int64_t p, int64_t j) {
    return double(c.tb == Trans::No ? b[size_t(p + j * ldb)] : b[size_t(j + p * ldb)]);
  };
  GemmWorkspace ws;
  if (reserved)
    ws.reserve(reserved->m, reserved->n, reserved->k);
  else
    ws.reserve(c.m, c.n, c.k);
  sgemm(c.ta, c.tb, c.m, c.n, c.k, a.data(), lda, b.data(), ldb, cm.data(), ldc, c.accumulate, ws);
  for (int64_t j = 0; j < c.n; ++j) {
    for (int64_t i = 0; i < c.m; ++i) {
      double ref = c.accumulate ? double(c0[size_t(i + j * ldc)]) : 0.0;
      for (int64_t p = 0; p < c.k; ++p) ref += op_a(i, p) * op_b(p, j);
      // float products summed over k terms of magnitude <= 1: error ~ k * 2^-24 at most
      ASSERT_NEAR(cm[size_t(i + j * ldc)], ref, 1e-6 * double(c.k + 1))
          << "m " << c.m << " n " << c.n << " k " << c.k << " at (" << i << ", " << j << ")";
    }
    for (int64_t i = c.m; i < ldc; ++i)  // the padding rows of C are never written
      ASSERT_EQ(cm[size_t(i + j * ldc)], c0[size_t(i + j * ldc)]);
  }
}

TEST(Sgemm, MatchesNaiveProductForEveryLayoutAndEdge) {
  if (!sgemm_available()) GTEST_SKIP() << "built without AVX-512";
  const Trans t[] = {Trans::No, Trans::Yes};
  // 1, partial tiles (m 33, 47; n 13, 25), a multiple of the tile (64 x 24), several depth blocks
  // (k 700 -> 2 x 350) and several row blocks (m 300 > 128).
  // n 100: A packed (n > 24); n 13, 25, 29, 1: the 32 x 8 tile; n 24, 100: the 32 x 12 tile.
  const int64_t shapes[][3] = {{1, 1, 1},     {33, 13, 7},   {47, 25, 17},
                               {64, 24, 700}, {300, 29, 45}, {70, 100, 333}};
  for (Trans ta : t)
    for (Trans tb : t)
      for (const auto& s : shapes)
        for (bool acc : {false, true}) check({ta, tb, s[0], s[1], s[2], acc});
}

using test::CollectingSink;

// A (m x k), B (k x n) and a starting C, uniform in [-1, 1], drawn in that order.
struct Operands {
  std::vector<float> a, b, c0;
};
Operands random_operands(int64_t m, int64_t n, int64_t k, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1, 1);
  Operands o{std::vector<float>(size_t(m * k)), std::vector<float>(size_t(k * n)),
             std::vector<float>(size_t(m * n))};
  for (float& v : o.a) v = u(rng);
  for (float& v : o.b) v = u(rng);
  for (float& v : o.c0) v = u(rng);
  return o;
}

// C (m x n) = A B^T (+ c0 if acc), A column-major m x k, B column-major n x k: stored
// (`plain`) and, from the same c0, handed to a sink, with the same workspace.
struct StoredAndSunk {
  std::vector<float> plain;
  CollectingSink sink;
};
StoredAndSunk stored_and_sunk(int64_t m, int64_t n, int64_t k, const std::vector<float>& a,
                              const std::vector<float>& b, const std::vector<float>& c0,
                              bool acc) {
  GemmWorkspace ws;
  ws.reserve(m, n, k);
  StoredAndSunk r{c0, CollectingSink(m, n)};
  std::vector<float> scratch = c0;
  sgemm(Trans::No, Trans::Yes, m, n, k, a.data(), m, b.data(), n, r.plain.data(), m, acc, ws);
  sgemm(Trans::No, Trans::Yes, m, n, k, a.data(), m, b.data(), n, scratch.data(), m, acc, ws,
        &r.sink);
  return r;
}

// `got` and the sink's tiles are the reference product `plain`, bit for bit, each element once.
void expect_same_product(const std::vector<float>& plain, const std::vector<float>& got,
                         const CollectingSink& sink, const std::string& where) {
  for (size_t i = 0; i < plain.size(); ++i) {
    ASSERT_EQ(got[i], plain[i]) << where << " at " << i;
    ASSERT_EQ(sink.hits[i], 1) << where << " at " << i;
    ASSERT_EQ(sink.values[i], plain[i]) << where << " at " << i;
  }
}

// The fused epilogue sees every element of C exactly once, bit-identical to the stored product
// (the optimizer relies on that for the same update as the unfused path).
TEST(Sgemm, SinkReceivesEveryTileOnceWithTheStoredValues) {
  if (!sgemm_available()) GTEST_SKIP() << "built without AVX-512";
  const int64_t shapes[][3] = {{1, 1, 1}, {33, 13, 7}, {256, 16, 784}, {70, 100, 333},
                               {40, 30, 0}};
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1, 1);
  for (const auto& s : shapes)
    for (bool acc : {false, true}) {
      const int64_t m = s[0], n = s[1], k = s[2];
      std::vector<float> a(size_t(m * k + 1)), b(size_t(k * n + 1)), c0(size_t(m * n));
      for (float& v : a) v = u(rng);
      for (float& v : b) v = u(rng);
      for (float& v : c0) v = u(rng);
      const auto [plain, sink] = stored_and_sunk(m, n, k, a, b, c0, acc);
      for (size_t i = 0; i < plain.size(); ++i) {
        ASSERT_EQ(sink.hits[i], 1) << "m " << m << " n " << n << " k " << k << " at " << i;
        ASSERT_EQ(sink.values[i], plain[i]) << "m " << m << " n " << n << " k " << k << " at " << i;
      }
    }
}

// C's rows are one row block for a sink when the packed B block is larger than L2 (3072 x 128
// and 2600 x 200 floats: 1.5 and 2 MiB) or the depth is at most 64 (1024 x 500 x 16), op(A)'s
// block fitting in half of L2 (gemm.cpp, one_row_block_for_sink): the sink then gets all row
// tiles of a column tile in one run (ceil(n / 12) runs, where 128-row blocks give two to eight
// times as many). Not for a deep product with B within L2 (300 x 784 x 256: B 0.8 MiB, three
// row blocks). A C of >= 2^20 floats goes in tiles of 4 columns at a depth of at most 32 (1024 x
// 1100 x 8), of 8 deeper (1024 x 1100 x 40; gemm.cpp, sink_tile_width). The values are the
// stored product's, bit for bit.
TEST(Sgemm, SinkGetsWholeColumnTilesWhenBExceedsL2OrTheDepthIsShallow) {
  if (!sgemm_available()) GTEST_SKIP() << "built without AVX-512";
  const int64_t shapes[][5] = {  // m, n, k, row blocks and tile width expected
      {160, 3072, 128, 1, 12},
      {300, 2600, 200, 1, 12},
      {1024, 500, 16, 1, 12},
      {300, 784, 256, 3, 12},
      {1024, 1100, 8, 1, 4},
      {1024, 1100, 40, 1, 8}};
  std::mt19937 rng(8);
  for (const auto& s : shapes) {
    const int64_t m = s[0], n = s[1], k = s[2];
    const auto [a, b, c0] = random_operands(m, n, k, rng);
    const auto [plain, sink] = stored_and_sunk(m, n, k, a, b, c0, false);
    EXPECT_EQ(sink.column_runs, s[3] * ((n + s[4] - 1) / s[4]))
        << "m " << m << " n " << n << " k " << k;
    for (size_t i = 0; i < plain.size(); ++i) {
      ASSERT_EQ(sink.hits[i], 1) << "m " << m << " n " << n << " at " << i;
      ASSERT_EQ(sink.values[i], plain[i]) << "m " << m << " n " << n << " at " << i;
    }
  }
}

// Split across a pool of threads (by columns, or by rows when C has few columns, or by depth
// blocks when C is too small for either: the last two shapes, conv1's weight gradient and one
// with 7 blocks over 3 threads), the product is bit-identical to the one-thread product and a
// sink still sees each element once. 256 x 784 x 128 and 64 x 2000 x 200 (>= 2e7 FLOPs, wider
// than tall) go in chunks of columns to whichever thread is free, with A packed once (64 x 2000:
// 14 chunks of 144 columns for 2 threads, 21 of 96 for 3, the last one partial).
TEST(Sgemm, ThreadPoolSplitIsBitIdentical) {
  if (!sgemm_available()) GTEST_SKIP() << "built without AVX-512";
  const int64_t shapes[][3] = {{256, 16, 784}, {784, 128, 256}, {256, 784, 128}, {70, 100, 333},
                               {33, 300, 90},  {32, 25, 10192}, {20, 40, 2000}, {64, 2000, 200}};
  std::mt19937 rng(9);
  for (int threads : {2, 3})
    for (const auto& s : shapes)
      for (Trans ta : {Trans::No, Trans::Yes}) {
        const int64_t m = s[0], n = s[1], k = s[2];
        const auto [a, b, c0] = random_operands(m, n, k, rng);
        const int64_t lda = ta == Trans::No ? m : k;
        GemmWorkspace one;
        one.reserve(m, n, k);
        std::vector<float> plain = c0;
        sgemm(ta, Trans::No, m, n, k, a.data(), lda, b.data(), k, plain.data(), m, true, one);
        WorkerPool pool(threads);
        GemmWorkspace ws;
        ws.set_pool(&pool);
        ws.reserve(m, n, k);
        std::vector<float> split = c0, scratch = c0;
        sgemm(ta, Trans::No, m, n, k, a.data(), lda, b.data(), k, split.data(), m, true, ws);
        CollectingSink sink(m, n);
        sgemm(ta, Trans::No, m, n, k, a.data(), lda, b.data(), k, scratch.data(), m, true, ws,
              &sink);
        expect_same_product(plain, split, sink,
                            std::to_string(threads) + " threads, m " + std::to_string(m) +
                                " n " + std::to_string(n));
      }
}

// Weights packed once (a convolution's, shared by its chunks of samples) give the same bits as
// packing them inside each product: every transpose, partial tiles and depth blocks, few columns
// (where the plain product reads A in place), a sink, and split across a pool by rows or columns.
TEST(Sgemm, PrePackedAIsBitIdenticalToPackingPerProduct) {
  if (!sgemm_available()) GTEST_SKIP() << "built without AVX-512";
  const int64_t shapes[][3] = {{64, 196, 800}, {800, 196, 64}, {32, 784, 25}, {70, 20, 333},
                               {33, 300, 90}, {256, 16, 784}};
  std::mt19937 rng(11);
  WorkerPool pool(2);
  for (int threads : {1, 2})
    for (const auto& s : shapes)
      for (Trans ta : {Trans::No, Trans::Yes})
        for (Trans tb : {Trans::No, Trans::Yes}) {
          const int64_t m = s[0], n = s[1], k = s[2];
          const auto [a, b, c0] = random_operands(m, n, k, rng);
          const int64_t lda = ta == Trans::No ? m : k, ldb = tb == Trans::No ? k : n;
          GemmWorkspace ws;
          if (threads > 1) ws.set_pool(&pool);
          ws.reserve(m, n, k);
          std::vector<float> plain = c0, packed = c0, scratch = c0;
          sgemm(ta, tb, m, n, k, a.data(), lda, b.data(), ldb, plain.data(), m, true, ws);
          PackedA pa;
          pa.reserve(m + 5, k + 7);  // reserved larger, as a layer reserves for its largest use
          pa.pack(ta, m, k, a.data(), lda, threads > 1 ? &pool : nullptr);
          ASSERT_EQ(pa.rows(), m);
          ASSERT_EQ(pa.depth(), k);
          sgemm(pa, tb, n, b.data(), ldb, packed.data(), m, true, ws);
          CollectingSink sink(m, n);
          sgemm(pa, tb, n, b.data(), ldb, scratch.data(), m, true, ws, &sink);
          expect_same_product(plain, packed, sink,
                              std::to_string(threads) + " threads, m " + std::to_string(m) +
                                  " n " + std::to_string(n) + " k " + std::to_string(k));
        }
}

// With few rows (m <= 64), or up to 256 rows and a B of at most 1 MiB, sgemm reads B in place
// instead of packing it: the same bits as the packed path, which the first m rows of a product
// with 200 more rows take (over 256 rows). Every transpose, partial column panels (n 25, 50,
// 100, 197), several depth blocks (k 700, 800) and leading dimensions larger than the matrices
// (a wrong stride in the in-place reads shows).
TEST(Sgemm, InPlaceBIsBitIdenticalToPackedB) {
  if (!sgemm_available()) GTEST_SKIP() << "built without AVX-512";
  const int64_t shapes[][3] = {{64, 197, 800}, {33, 100, 700}, {10, 25, 333},
                               {32, 36, 25},   {200, 50, 700}, {256, 30, 333}};
  const int64_t extra = 200, pad = 5;
  std::mt19937 rng(13);
  for (const auto& s : shapes)
    for (Trans ta : {Trans::No, Trans::Yes})
      for (Trans tb : {Trans::No, Trans::Yes}) {
        const int64_t m = s[0], n = s[1], k = s[2], big = m + extra;
        const auto [a, b, c0] = random_operands(big, n, k, rng);
        // op(A) of the big product, stored with a padded leading dimension; the small product
        // reads the same storage, so its rows are the big one's first m rows.
        const int64_t lda = (ta == Trans::No ? big : k) + pad;
        std::vector<float> as(size_t(lda * (ta == Trans::No ? k : big)));
        for (int64_t i = 0; i < big; ++i)
          for (int64_t p = 0; p < k; ++p)
            as[size_t(ta == Trans::No ? i + p * lda : p + i * lda)] = a[size_t(i + p * big)];
        const int64_t ldb = (tb == Trans::No ? k : n) + pad;
        std::vector<float> bs(size_t(ldb * (tb == Trans::No ? n : k)));
        for (int64_t p = 0; p < k; ++p)
          for (int64_t j = 0; j < n; ++j)
            bs[size_t(tb == Trans::No ? p + j * ldb : j + p * ldb)] = b[size_t(p + j * k)];
        GemmWorkspace ws;
        ws.reserve(big, n, k);
        std::vector<float> packed = c0, in_place(size_t(m * n));
        for (int64_t j = 0; j < n; ++j)
          for (int64_t i = 0; i < m; ++i) in_place[size_t(i + j * m)] = c0[size_t(i + j * big)];
        sgemm(ta, tb, big, n, k, as.data(), lda, bs.data(), ldb, packed.data(), big, true, ws);
        sgemm(ta, tb, m, n, k, as.data(), lda, bs.data(), ldb, in_place.data(), m, true, ws);
        for (int64_t j = 0; j < n; ++j)
          for (int64_t i = 0; i < m; ++i)
            ASSERT_EQ(in_place[size_t(i + j * m)], packed[size_t(i + j * big)])
                << "m " << m << " n " << n << " k " << k << " at (" << i << ", " << j << ")";
      }
}

// A workspace reserved for a depth serves every smaller one, although a smaller depth can be
// split into larger blocks: 10192 = 32 x 319 (rounded), 8624 = 27 x 320 (the last, shorter
// chunk of samples of a convolution's weight gradient). sgemm aborts if a buffer is short.
TEST(Sgemm, ReservedWorkspaceServesSmallerDepths) {
  if (!sgemm_available()) GTEST_SKIP() << "built without AVX-512";
  const Case big{Trans::No, Trans::Yes, 32, 25, 10192, false};
  for (int64_t k : {8624, 8000, 331, 321, 1})
    check({Trans::No, Trans::Yes, 32, 25, k, true}, &big);
}

TEST(Sgemm, ZeroDepthClearsOrKeepsC) {
  if (!sgemm_available()) GTEST_SKIP() << "built without AVX-512";
  GemmWorkspace ws;
  std::vector<float> c = {1, 2, 3, 4};
  sgemm(Trans::No, Trans::No, 2, 2, 0, nullptr, 2, nullptr, 1, c.data(), 2, true, ws);
  EXPECT_EQ(c, (std::vector<float>{1, 2, 3, 4}));
  sgemm(Trans::No, Trans::No, 2, 2, 0, nullptr, 2, nullptr, 1, c.data(), 2, false, ws);
  EXPECT_EQ(c, (std::vector<float>{0, 0, 0, 0}));
}

}  // namespace
}  // namespace kp::trainer_detail
