// The blocked product's tile shapes (gemm_tiles.h, gemm.cpp): a last column tile of 1-11
// columns (a narrower kernel for <= 4 or <= 8 of them) gives each element the bits it has inside
// a full tile: C's first 48 + t columns against the same columns of the product with 60 (five
// full tiles of 12), for B packed or read in place (m <= 64), B transposed or not, and several
// depth blocks. And a sink's flush() after each thread's last tile, on every path.
#include <gtest/gtest.h>

#include <cstdint>
#include <mutex>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "models/trainer/gemm.h"
#include "models/trainer/network.h"
#include "models/trainer/worker_pool.h"

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

// Records, per part, the order of tiles and flushes; a flush goes to the part whose tiles its
// thread delivered last (parts run on different threads, each part's tiles on one).
class FlushOrderSink final : public TileSink {
 public:
  void tile(int64_t, int64_t, int64_t rows, int64_t cols, const float*, int64_t,
            int part) override {
    last() = {this, part};
    const std::lock_guard<std::mutex> lock(m_mutex);
    m_events[part].push_back(rows * cols);  // > 0: a tile
  }
  bool order_free() const override { return false; }  // as the optimizer's update sink
  void flush(int part) override {
    if (last().first != this) return;  // a thread that delivered no tile: nothing to fence
    EXPECT_EQ(part, last().second);    // the part whose tiles this thread delivered
    const std::lock_guard<std::mutex> lock(m_mutex);
    m_events[part].push_back(0);
  }
  // Every part that delivered tiles flushed after its last one; the tiles covered m x n.
  void expect_flushed(int64_t elements, const std::string& where) const {
    int64_t covered = 0;
    for (const auto& e : m_events) {
      for (int64_t v : e) covered += v;
      if (!e.empty()) {
        EXPECT_EQ(e.back(), 0) << where;
      }
    }
    EXPECT_EQ(covered, elements) << where;
  }

 private:
  static std::pair<const TileSink*, int>& last() {
    static thread_local std::pair<const TileSink*, int> l{nullptr, 0};
    return l;
  }
  std::mutex m_mutex;
  std::vector<int64_t> m_events[kMaxTrialThreads];
};

TEST(SgemmTiles, SinkIsFlushedAfterEachPartsLastTile) {
  if (!sgemm_available()) GTEST_SKIP() << "built without AVX-512";
  std::mt19937 rng(3);
  WorkerPool pool(2);
  // One thread; split by rows or columns on two; C too small to split: by depth blocks on two;
  // no depth at all.
  const int64_t shapes[][3] = {{64, 48, 32}, {512, 256, 64}, {64, 2048, 128}, {32, 25, 10192},
                               {40, 30, 0}};
  for (const auto& s : shapes)
    for (int threads : {1, 2}) {
      const int64_t m = s[0], n = s[1], k = s[2];
      const std::vector<float> a = uniform(m * k, rng), b = uniform(k * n, rng);
      std::vector<float> c(static_cast<size_t>(m * n));
      GemmWorkspace ws;
      if (threads > 1) ws.set_pool(&pool);
      ws.reserve(m, n, k);
      FlushOrderSink sink;
      sgemm(Trans::No, Trans::No, m, n, k, a.data(), m, b.data(), k, c.data(), m, false, ws,
            &sink);
      const std::string where = std::to_string(threads) + " thread(s), " + std::to_string(m) +
                                " x " + std::to_string(n) + " x " + std::to_string(k);
      sink.expect_flushed(m * n, where);
    }
}

}  // namespace
}  // namespace kp::trainer_detail
