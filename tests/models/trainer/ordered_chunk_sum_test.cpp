// OrderedChunkSum (ordered_chunk_sum.h): chunks computed by whichever thread is free, in any
// order of completion, summed into the destination in chunk order, bit for bit as one thread's
// loop over the chunks sums them.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "models/trainer/ordered_chunk_sum.h"
#include "models/trainer/worker_pool.h"

namespace kp::trainer_detail {
namespace {

constexpr int64_t kN = 300, kStoreFirst = 200, kChunks = 37;

// Chunk c's partial: magnitudes from 1e-3 to 1e7, so that float sums depend on their order.
std::vector<float> partial_of(int64_t c) {
  std::mt19937 rng(static_cast<uint32_t>(1000 + c));
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> g(kN);
  for (int64_t e = 0; e < kN; ++e)
    g[static_cast<size_t>(e)] = u(rng) * std::pow(10.0f, static_cast<float>((c * 7 + e) % 11 - 3));
  return g;
}

// What one thread's loop computes: the first chunk's [0, kStoreFirst) stored, all else added to
// the destination as it was, chunk after chunk.
std::vector<float> serial_sum(const std::vector<float>& init, bool reversed) {
  std::vector<float> d = init;
  for (int64_t i = 0; i < kChunks; ++i) {
    const int64_t c = reversed ? kChunks - 1 - i : i;
    const std::vector<float> g = partial_of(c);
    for (int64_t e = 0; e < kN; ++e) {
      const auto k = static_cast<size_t>(e);
      d[k] = i == 0 && e < kStoreFirst ? g[k] : d[k] + g[k];
    }
  }
  return d;
}

std::vector<float> initial_destination() {
  std::vector<float> d(kN);
  for (int64_t e = 0; e < kN; ++e)  // the stored part must never be read: NaN would show
    d[static_cast<size_t>(e)] =
        e < kStoreFirst ? std::numeric_limits<float>::quiet_NaN() : 0.25f * float(e);
  return d;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(OrderedChunkSum, TheDataTellsTheOrderApart) {
  EXPECT_FALSE(same_bits(serial_sum(initial_destination(), false),
                         serial_sum(initial_destination(), true)));
}

// Chunks take uneven, seed-dependent times, so they finish out of order and a thread often
// holds both its slots; every chunk runs once, on a thread of the pool; the sum is the serial
// one bit for bit, on 1 to 4 threads and when run twice on one object.
TEST(OrderedChunkSum, SumsInChunkOrderWhateverFinishesFirst) {
  const std::vector<float> expected = serial_sum(initial_destination(), false);
  for (int threads : {1, 2, 3, 4}) {
    std::unique_ptr<WorkerPool> pool;
    if (threads > 1) pool = std::make_unique<WorkerPool>(threads);
    OrderedChunkSum<float> sum;
    sum.reserve(kN, threads, kChunks);
    for (int run = 0; run < 2; ++run) {
      std::vector<float> dst = initial_destination();
      std::vector<std::atomic<int>> runs(kChunks);
      std::atomic<int> bad_part{0};
      sum.run(pool.get(), kChunks, kStoreFirst, dst.data(), [&](int64_t c, int part, float* g) {
        if (part < 0 || part >= threads) bad_part.fetch_add(1);
        runs[static_cast<size_t>(c)].fetch_add(1);
        volatile double spin = 0;  // uneven work: 0 to ~0.2 ms
        for (int64_t i = 0; i < ((c * 7919 + run * 104729) % 13) * 20000; ++i) spin = spin + 1.0;
        const std::vector<float> p = partial_of(c);
        std::copy(p.begin(), p.end(), g);
      });
      EXPECT_EQ(bad_part.load(), 0);
      for (int64_t c = 0; c < kChunks; ++c)
        EXPECT_EQ(runs[static_cast<size_t>(c)].load(), 1) << "chunk " << c;
      EXPECT_TRUE(same_bits(dst, expected)) << threads << " threads, run " << run;
    }
  }
}

}  // namespace
}  // namespace kp::trainer_detail
