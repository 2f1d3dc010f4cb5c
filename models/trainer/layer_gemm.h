#pragma once
// The product the trainer's layers use, and their Eigen map aliases: the AVX-512 sgemm for float
// where built, Eigen otherwise (double for the gradient checks, or a CPU without AVX-512).
// Internal to kp_trainer (includes Eigen; compiled with the trainer's own flags).
#include <Eigen/Core>

#include <cstdint>
#include <type_traits>

#include "models/trainer/gemm.h"
#include "models/trainer/worker_pool.h"

namespace kp::trainer_detail {

template <class T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
template <class T>
using MapM = Eigen::Map<Mat<T>>;
template <class T>
using CMapM = Eigen::Map<const Mat<T>>;
template <class T>
using MapV = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>>;
template <class T>
using CMapV = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, 1>>;

// C (m x n) = op(A) op(B) (+ C).
template <class T>
inline void gemm(Trans ta, Trans tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
          const T* b, int64_t ldb, T* c, int64_t ldc, bool accumulate, GemmWorkspace& ws) {
  if constexpr (std::is_same_v<T, float>) {
    if (sgemm_available()) return sgemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, accumulate, ws);
  }
  using S = Eigen::OuterStride<>;
  using CMapS = Eigen::Map<const Mat<T>, 0, S>;
  Eigen::Map<Mat<T>, 0, S> C(c, m, n, S(ldc));
  const CMapS A(a, ta == Trans::No ? m : k, ta == Trans::No ? k : m, S(lda));
  const CMapS B(b, tb == Trans::No ? k : n, tb == Trans::No ? n : k, S(ldb));
  auto assign = [&](const auto& product) {
    if (accumulate)
      C.noalias() += product;
    else
      C.noalias() = product;
  };
  if (ta == Trans::No && tb == Trans::No) assign(A * B);
  else if (ta == Trans::No) assign(A * B.transpose());
  else if (tb == Trans::No) assign(A.transpose() * B);
  else assign(A.transpose() * B.transpose());
}

// out (rows) = the row sums of y (rows x cols, column-major), added to out if `add`: a bias
// gradient. On the pool's threads by blocks of 16 rows when rows is a multiple of 16 and the
// sum covers >= 64k elements; Eigen sums a row the same way in any block of whole 16-float
// packets, so the bits do not depend on the split (MultiThreadedTrialIsBitIdentical and
// MultiThreadedConvTrialIsBitIdentical take it). At b=1024 the MLP's fc1 and fc2 sums (1 MB of
// dY each) ran on one thread while the helper waited: MLP b=1024 on 2 threads +1.6% (faster in
// 51 of 80 in-process rounds).
template <class T>
void row_sums(WorkerPool* pool, const T* y, int64_t rows, int64_t cols, T* out, bool add) {
  const CMapM<T> Y(y, rows, cols);
  auto block = [&](int64_t r0, int64_t n) {
    if (add)
      MapV<T>(out + r0, n) += Y.middleRows(r0, n).rowwise().sum();
    else
      MapV<T>(out + r0, n) = Y.middleRows(r0, n).rowwise().sum();
  };
  if (!pool || rows % 16 != 0 || rows * cols < (int64_t{1} << 16)) return block(0, rows);
  parallel_for(pool, rows / 16, 2,
               [&](int64_t lo, int64_t hi) { block(lo * 16, (hi - lo) * 16); });
}

}  // namespace kp::trainer_detail
