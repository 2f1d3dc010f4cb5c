#pragma once
// Winograd's F(5 x 5, 5 x 5) (Lavin & Gray 2016): a 5 x 5 output tile from a 9 x 9 input tile
// with 81 products instead of 625. Why a second tile size: the Simple CNN's conv2 has 14 x 14
// outputs, which 4 x 4 tiles cover as 16 x 16 (16 tiles, 1024 products a channel pair), and 5 x 5
// tiles as 15 x 15 (9 tiles, 729): 29% fewer multiplications.
// Points: 0, +-1, +-2, +-1/2, +-4, without infinity (Toom-Cook with nine finite points, the
// construction of winograd_transforms.h). Why these: every set was simulated in float with FMAs
// against exact sums, 500 outputs each, error relative to the sum of the terms' magnitudes:
//   F(4, 5) at 0, +-1, +-2, +-1/2, inf (the 4 x 4 tiles):   mean 3.6e-7, 99th pct 2.3e-6
//   F(5, 5) at those and 1/4 (asymmetric):                   mean 1.6e-6, 99th pct 1.6e-5
//   F(5, 5) at 0, +-1, +-2, +-1/2, +-4 (chosen):             mean 1.3e-6, 99th pct 1.1e-5
//   F(5, 5) with +-3, +-3/2, +-1/3, +-2/3 or +-3/4 for +-4:  mean 1.9e-6 .. 5.7e-6
// (F(7 x 7) would tile 14 exactly, but its eleven points err by ~1e-5 on average and up to
// 4e-4: too coarse.) A symmetric set has a second merit: every map factors by the +-p pairs.
// The maps here are generic over such matrices (PointRows, PointColumns) rather than written out
// by hand as the 4 x 4 tiles' are.
// Internal to kp_trainer; AVX-512 builds only.
#ifdef __AVX512F__
#include "models/trainer/winograd_transforms.h"

namespace kp::trainer_detail::winograd {

// Derived with exact fractions; points (B^T's and G's rows, A^T's columns) in the order 0, 1, -1,
// 2, -2, 1/2, -1/2, 4, -4.
struct F5x5 {
  static constexpr int kM = 5, kR = 5, kAlpha = 9;
  static constexpr Mat<kM, kAlpha> kAT{{{1, 1, 1, 1, 1, 1, 1, 1, 1},
                                        {0, 1, -1, 2, -2, 1.0f / 2, -1.0f / 2, 4, -4},
                                        {0, 1, 1, 4, 4, 1.0f / 4, 1.0f / 4, 16, 16},
                                        {0, 1, -1, 8, -8, 1.0f / 8, -1.0f / 8, 64, -64},
                                        {0, 1, 1, 16, 16, 1.0f / 16, 1.0f / 16, 256, 256}}};
  static constexpr Mat<kAlpha, kR> kG{
      {{1.0f / 16, 0, 0, 0, 0},
       {2.0f / 135, 2.0f / 135, 2.0f / 135, 2.0f / 135, 2.0f / 135},
       {2.0f / 135, -2.0f / 135, 2.0f / 135, -2.0f / 135, 2.0f / 135},
       {-1.0f / 1080, -1.0f / 540, -1.0f / 270, -1.0f / 135, -2.0f / 135},
       {-1.0f / 1080, 1.0f / 540, -1.0f / 270, 1.0f / 135, -2.0f / 135},
       {-128.0f / 2835, -64.0f / 2835, -32.0f / 2835, -16.0f / 2835, -8.0f / 2835},
       {-128.0f / 2835, 64.0f / 2835, -32.0f / 2835, 16.0f / 2835, -8.0f / 2835},
       {1.0f / 90720, 1.0f / 22680, 1.0f / 5670, 2.0f / 2835, 8.0f / 2835},
       {1.0f / 90720, -1.0f / 22680, 1.0f / 5670, -2.0f / 2835, 8.0f / 2835}}};
  static constexpr Mat<kAlpha, kAlpha> kBT{
      {{16, 0, -85, 0, 357.0f / 4, 0, -85.0f / 4, 0, 1},
       {0, -16, -16, 69, 69, -81.0f / 4, -81.0f / 4, 1, 1},
       {0, 16, -16, -69, 69, 81.0f / 4, -81.0f / 4, -1, 1},
       {0, -8, -4, 81.0f / 2, 81.0f / 4, -69.0f / 2, -69.0f / 4, 2, 1},
       {0, 8, -4, -81.0f / 2, 81.0f / 4, 69.0f / 2, -69.0f / 4, -2, 1},
       {0, -32, -64, 42, 84, -21.0f / 2, -21, 1.0f / 2, 1},
       {0, 32, -64, -42, 84, 21.0f / 2, -21, -1.0f / 2, 1},
       {0, -4, -1, 21, 21.0f / 4, -21, -21.0f / 4, 4, 1},
       {0, 4, -1, -21, 21.0f / 4, 21, -21.0f / 4, -4, 1}}};
};

// Whether rows 2j-1 and 2j of l (points p and -p) agree at even columns and are opposite at odd
// ones (a polynomial's coefficients at p and -p), as the maps below assume.
template <int R, int K>
constexpr bool rows_pair(const Mat<R, K>& l) {
  for (int i = 1; i + 1 < R; i += 2)
    for (int k = 0; k < K; ++k)
      if (l.v[i + 1][k] != (k % 2 == 0 ? l.v[i][k] : -l.v[i][k])) return false;
  return R % 2 == 1;
}

// l with the columns of the other parity (0 even, 1 odd) zeroed, which dot() then skips.
template <int R, int K>
constexpr Mat<R, K> parity_part(const Mat<R, K>& l, int parity) {
  Mat<R, K> p{};
  for (int i = 0; i < R; ++i)
    for (int k = parity; k < K; k += 2) p.v[i][k] = l.v[i][k];
  return p;
}

// l with the second column of each pair (2, 4, ...) zeroed.
template <int R, int K>
constexpr Mat<R, K> first_of_pairs(const Mat<R, K>& l) {
  Mat<R, K> p = l;
  for (int i = 0; i < R; ++i)
    for (int k = 2; k < K; k += 2) p.v[i][k] = 0;
  return p;
}

// y = L x where L's rows are at the points 0, p1, -p1, p2, -p2, ...: each pair is E + O and
// E - O of one even-column sum E and one odd-column sum O (S::kL is the matrix).
template <class S>
struct PointRows {
  static constexpr auto& kL = S::kL;
  static constexpr auto kEven = parity_part(kL, 0), kOdd = parity_part(kL, 1);
  static constexpr int kOut = sizeof(kL.v) / sizeof(kL.v[0]);
  static constexpr int kIn = sizeof(kL.v[0]) / sizeof(float);
  static_assert(rows_pair(kL));
  __attribute__((always_inline)) static void apply(const __m512 (&x)[kIn], __m512 (&y)[kOut]) {
    const auto at = [&](int k) { return x[k]; };
    y[0] = dot(kL.v[0], at);
#pragma GCC unroll 16
    for (int i = 1; i < kOut; i += 2) {
      const __m512 e = dot(kEven.v[i], at), o = dot(kOdd.v[i], at);
      y[i] = _mm512_add_ps(e, o);
      y[i + 1] = _mm512_sub_ps(e, o);
    }
  }
};

// y = L x where L's columns are at those points (L^T as PointRows'): the inputs at p and -p enter
// even rows as their sum and odd rows as their difference, at the pair's first column.
template <class S>
struct PointColumns {
  static constexpr auto& kL = S::kL;
  static constexpr auto kFirst = first_of_pairs(kL);
  static constexpr int kOut = sizeof(kL.v) / sizeof(kL.v[0]);
  static constexpr int kIn = sizeof(kL.v[0]) / sizeof(float);
  static_assert(rows_pair(transposed(kL)));
  __attribute__((always_inline)) static void apply(const __m512 (&x)[kIn], __m512 (&y)[kOut]) {
    __m512 sum[kIn], diff[kIn];  // at the pair's first index
#pragma GCC unroll 16
    for (int k = 1; k < kIn; k += 2) {
      sum[k] = _mm512_add_ps(x[k], x[k + 1]);
      diff[k] = _mm512_sub_ps(x[k], x[k + 1]);
    }
#pragma GCC unroll 16
    for (int i = 0; i < kOut; ++i) {
      const __m512(&pairs)[kIn] = i % 2 == 0 ? sum : diff;
      y[i] = dot(kFirst.v[i], [&](int k) { return k == 0 ? x[0] : pairs[k]; });
    }
  }
};

// The four hot maps of F(5 x 5, 5 x 5), as winograd_transforms.h's BtMap, BMap, AtMap, AMap.
struct F5Bt {
  static constexpr auto kL = F5x5::kBT;
};
struct F5B {
  static constexpr auto kL = transposed(F5x5::kBT);
};
struct F5At {
  static constexpr auto kL = F5x5::kAT;
};
struct F5A {
  static constexpr auto kL = transposed(F5x5::kAT);
};
using F5BtMap = PointRows<F5Bt>;
using F5BMap = PointColumns<F5B>;
using F5AtMap = PointColumns<F5At>;
using F5AMap = PointRows<F5A>;
using F5Scheme = Scheme<F5x5, F5BtMap, F5BMap, F5AtMap, F5AMap>;

}  // namespace kp::trainer_detail::winograd
#endif
