#pragma once
// Batch 1: a dense layer's matrix-vector products (layers.cpp) and the outer product's update
// (optimizer.cpp) cut a weight matrix of at least kMatVecSplitMin elements into kMatVecParts
// fixed parts of its columns (smaller ones are one part: a fork-join would cost more than the
// split saves). The forward multiplies each part apart and then adds the parts in order, so the
// values depend on the matrix's shape, never on how many threads take the parts. Each thread of
// a multi-threaded trial takes the same parts in every one of these loops, so each core keeps
// its columns of the weights and velocities in its own cache: the MLP's 2.1 MB of them are read
// and written every step, and a line another core wrote costs far more here than one from L3
// (the update alone cut by rows ran 4x slower on two threads than on one, each core's
// prefetcher fetching the other's lines; cut by columns but with the forward on one core, 3x).
// Two parts: with eight, Eigen multiplied each part (< 128 columns) in one column block, and one
// thread ran 4% slower than the whole product; with two, 2%. MLP b=1, one trial on 2 threads:
// 3.9-4.3x -> 6.1-6.4x the PyTorch anchor (three alternating runs each).
// Internal to kp_trainer.
#include <cstdint>

#include "models/trainer/worker_pool.h"

namespace kp::trainer_detail {

constexpr int kMatVecParts = 2;
constexpr int64_t kMatVecSplitMin = 16384;

// The number of parts of a matrix with `elements` elements.
inline int matvec_parts(int64_t elements) { return elements >= kMatVecSplitMin ? kMatVecParts : 1; }

// Calls f(part, lo, hi) for every part of a matrix of `elements` elements with `cols` columns,
// [lo, hi) its columns (empty if cols < parts): each of the pool's threads a contiguous run of
// parts, or all on the caller without a pool. f must write disjoint outputs per part.
template <class F>
void for_matvec_parts(WorkerPool* pool, int64_t cols, int64_t elements, F&& f) {
  const int parts = matvec_parts(elements);
  run_parts(parts > 1 ? pool : nullptr, [&](int t, int threads) {
    for (int p = parts * t / threads; p < parts * (t + 1) / threads; ++p)
      f(p, cols * p / parts, cols * (p + 1) / parts);
  });
}

}  // namespace kp::trainer_detail
