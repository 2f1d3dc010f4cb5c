#pragma once
// The product the trainer's layers use, and their Eigen map aliases: the AVX-512 sgemm for float
// where built, Eigen otherwise (double for the gradient checks, or a CPU without AVX-512).
// Internal to kp_trainer (includes Eigen; compiled with the trainer's own flags).
#include <Eigen/Core>

#include <cstdint>
#include <type_traits>

#include "models/trainer/gemm.h"

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

}  // namespace kp::trainer_detail
