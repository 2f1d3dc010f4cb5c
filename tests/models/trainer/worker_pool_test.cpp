// The fork-join helpers of a multi-threaded trial (worker_pool.h): every part or chunk runs
// exactly once, on a thread the pool names.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include "models/trainer/worker_pool.h"

namespace kp::trainer_detail {
namespace {

TEST(WorkerPool, EachChunkRunsOnceOnSomeThread) {
  for (int threads : {1, 2, 3}) {
    WorkerPool pool(threads);
    for (int64_t chunks : {0, 1, 5, 100}) {
      std::vector<std::atomic<int>> runs(static_cast<size_t>(chunks));
      std::vector<int> part_of(static_cast<size_t>(chunks), -1);
      for_each_chunk(&pool, chunks, [&](int64_t c, int part) {
        runs[static_cast<size_t>(c)].fetch_add(1);
        part_of[static_cast<size_t>(c)] = part;
      });
      for (int64_t c = 0; c < chunks; ++c) {
        EXPECT_EQ(runs[static_cast<size_t>(c)].load(), 1) << threads << " threads, chunk " << c;
        EXPECT_GE(part_of[static_cast<size_t>(c)], 0);
        EXPECT_LT(part_of[static_cast<size_t>(c)], threads);
      }
    }
  }
  int calls = 0;  // no pool: all on the caller, as part 0
  for_each_chunk(nullptr, 4, [&](int64_t c, int part) {
    EXPECT_EQ(c, calls);
    EXPECT_EQ(part, 0);
    ++calls;
  });
  EXPECT_EQ(calls, 4);
}

TEST(WorkerPool, RunPartsCallsEveryPartOnce) {
  WorkerPool pool(3);
  std::vector<std::atomic<int>> runs(3);
  run_parts(&pool, [&](int part, int parts) {
    EXPECT_EQ(parts, 3);
    runs[static_cast<size_t>(part)].fetch_add(1);
  });
  for (const auto& r : runs) EXPECT_EQ(r.load(), 1);
}

}  // namespace
}  // namespace kp::trainer_detail
