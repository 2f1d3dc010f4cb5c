#pragma once
// Batch 1: a dense layer's matrix-vector products (dense.cpp) and the outer product's update
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
// Batches 2..24 (where sgemm reads the weights in place) go by the same parts, each an sgemm
// with its own packing buffers: before, their products split by rows (the forward) and columns
// (the update), so half of every weight column moved between the cores each step. In-process A/B
// of whole steps (parts vs the split): MLP b=16 on 2 threads +79% (faster in 60 of 60 rounds),
// b=4 +112% (59/60); on 1 thread b=16 +0.1% (34/60), b=4 +2.7%. Up to batch 32 too: 2 threads
// +31% there but 1 thread -2.2% (17/40); 64: +5% / -4%; 128: +1.9% / -1.7%, and the step-curve
// trials run on 1 thread. The forward's sums at these batches differ from the whole product's
// in the last bits (the parts' depth blocks: 784 -> 2 x 392 = 4 x 196, was 3 x 262).
// Internal to kp_trainer.
#include <algorithm>
#include <cstdint>

#include "models/trainer/worker_pool.h"

namespace kp::trainer_detail {

constexpr int kMatVecParts = 2;
constexpr int64_t kMatVecSplitMin = 16384;

// The number of parts of a matrix with `elements` elements.
inline int matvec_parts(int64_t elements) { return elements >= kMatVecSplitMin ? kMatVecParts : 1; }

// Batches 2..kColumnPartsMaxBatch of a matrix of at least kMatVecSplitMin elements go by the
// same column parts (each part an sgemm; float with AVX-512 only), batch 1 by its parts always.
constexpr int64_t kColumnPartsMaxBatch = 24;
inline bool by_column_parts(int64_t batch, int64_t elements) {
  return batch == 1 || (batch <= kColumnPartsMaxBatch && elements >= kMatVecSplitMin);
}

// Batch 1: the pool to split a matrix's parts over, or null (the caller takes every part) below
// kBatchOneForkMin elements, where a fork-join costs more than sharing the product saves. The
// parts, and so the values, stay the same. MLP b=1, one trial on 2 threads, fc2 (65,536
// elements) on the caller: +7.8% (faster in 12 of 12 alternating runs); fc1 (200,704) is split.
constexpr int64_t kBatchOneForkMin = 131072;
inline WorkerPool* batch_one_pool(WorkerPool* pool, int64_t elements) {
  return elements >= kBatchOneForkMin ? pool : nullptr;
}

// Calls f(part, lo, hi, thread) for every part of a matrix of `elements` elements with `cols`
// columns, [lo, hi) its columns (empty if cols < parts): each of the pool's threads (`thread`,
// e.g. for sgemm's packing buffers) a contiguous run of parts, or all on the caller (thread 0)
// without a pool. f must write disjoint outputs per part.
template <class F>
void for_matvec_parts(WorkerPool* pool, int64_t cols, int64_t elements, F&& f) {
  const int parts = matvec_parts(elements);
  run_parts(parts > 1 ? pool : nullptr, [&](int t, int threads) {
    for (int p = parts * t / threads; p < parts * (t + 1) / threads; ++p)
      f(p, cols * p / parts, cols * (p + 1) / parts, t);
  });
}

// The same with g(part, lo, hi, thread) returning a part's sum (the update's squared norm over
// its columns): the parts' sums added in part order, so the total does not depend on the threads.
template <class G>
double sum_over_matvec_parts(WorkerPool* pool, int64_t cols, int64_t elements, G&& g) {
  double part[kMatVecParts] = {};  // one store per part: the parts' sums share a cache line
  for_matvec_parts(pool, cols, elements,
                   [&](int p, int64_t lo, int64_t hi, int t) { part[p] = g(p, lo, hi, t); });
  double sum = 0;
  for (double s : part) sum += s;
  return sum;
}

// y[0, n) = the forward's parts added in part order, part p's sums at sums + p * n.
template <class T>
void add_matvec_parts(const T* sums, int parts, int64_t n, T* y) {
  std::copy(sums, sums + n, y);
  for (int p = 1; p < parts; ++p) {
    const T* __restrict s = sums + p * n;
    for (int64_t i = 0; i < n; ++i) y[i] += s[i];
  }
}

}  // namespace kp::trainer_detail
