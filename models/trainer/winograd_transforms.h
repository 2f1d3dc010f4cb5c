#pragma once
// Winograd's minimal filtering F(m x m, 5 x 5) (Lavin & Gray 2016, "Fast algorithms for
// convolutional neural networks"): an m x m output tile of a 5 x 5 correlation from an
// (m + 4) x (m + 4) input tile with (m + 4)^2 products instead of 25 m^2,
//   Y = A^T [(G g G^T) . (B^T d B)] A.
// Here m = 4. The matrices are Toom-Cook's at the smallest points: 0, 1, -1, 2, -2, 1/2, -1/2
// and infinity. Derived with exact fractions: linear convolution s = g * h is
// C [(E_g g) . (E_h h)] with E evaluating at the points (rows of powers, infinity's row picking
// the leading coefficient), C interpolating (column j the coefficients of prod_{l != j}(x - p_l),
// infinity's column those of prod_l (x - p_l)) and 1 / prod_{l != j}(p_j - p_l) moved into
// G = E_g; the correlation is its transpose: A^T = E_h^T, B^T = C^T. (The same construction
// gives the usual F(2, 3) and, at these points, B^T of the well-known F(6, 3).)
// The gradients are the transposed maps: dM = A dY A^T, dU = dM . V, dV = dM . U,
// dd = B dV B^T, dg = G^T dU G.
// The vector helpers below combine rows of 16-lane vectors with these constant coefficients,
// skipping zeros and using add/sub for +-1 (fully unrolled, so the skips cost nothing).
// Internal to kp_trainer; AVX-512 builds only.
#ifdef __AVX512F__
#include <immintrin.h>

namespace kp::trainer_detail::winograd {

template <int R, int C>
struct Mat {
  float v[R][C];
};

template <int R, int C>
constexpr Mat<C, R> transposed(const Mat<R, C>& m) {
  Mat<C, R> t{};
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) t.v[j][i] = m.v[i][j];
  return t;
}

// F(4 x 4, 5 x 5): 64 products per 16 outputs (6.25x fewer than direct).
struct F4x4 {
  static constexpr int kM = 4, kR = 5, kAlpha = 8;
  static constexpr Mat<kM, kAlpha> kAT{{{1, 1, 1, 1, 1, 1, 1, 0},
                                        {0, 1, -1, 2, -2, 1.0f / 2, -1.0f / 2, 0},
                                        {0, 1, 1, 4, 4, 1.0f / 4, 1.0f / 4, 0},
                                        {0, 1, -1, 8, -8, 1.0f / 8, -1.0f / 8, 1}}};
  static constexpr Mat<kAlpha, kR> kG{{{-1, 0, 0, 0, 0},
                                       {-2.0f / 9, -2.0f / 9, -2.0f / 9, -2.0f / 9, -2.0f / 9},
                                       {-2.0f / 9, 2.0f / 9, -2.0f / 9, 2.0f / 9, -2.0f / 9},
                                       {1.0f / 90, 1.0f / 45, 2.0f / 45, 4.0f / 45, 8.0f / 45},
                                       {1.0f / 90, -1.0f / 45, 2.0f / 45, -4.0f / 45, 8.0f / 45},
                                       {32.0f / 45, 16.0f / 45, 8.0f / 45, 4.0f / 45, 2.0f / 45},
                                       {32.0f / 45, -16.0f / 45, 8.0f / 45, -4.0f / 45, 2.0f / 45},
                                       {0, 0, 0, 0, 1}}};
  static constexpr Mat<kAlpha, kAlpha> kBT{
      {{-1, 0, 21.0f / 4, 0, -21.0f / 4, 0, 1, 0},
       {0, 1, 1, -17.0f / 4, -17.0f / 4, 1, 1, 0},
       {0, -1, 1, 17.0f / 4, -17.0f / 4, -1, 1, 0},
       {0, 1.0f / 2, 1.0f / 4, -5.0f / 2, -5.0f / 4, 2, 1, 0},
       {0, -1.0f / 2, 1.0f / 4, 5.0f / 2, -5.0f / 4, -2, 1, 0},
       {0, 2, 4, -5.0f / 2, -5, 1.0f / 2, 1, 0},
       {0, -2, 4, 5.0f / 2, -5, -1.0f / 2, 1, 0},
       {0, -1, 0, 21.0f / 4, 0, -21.0f / 4, 0, 1}}};
};

// The transposes the gradients use.
template <class F>
struct Transposes {
  static constexpr auto kA = transposed(F::kAT);
  static constexpr auto kGT = transposed(F::kG);
  static constexpr auto kB = transposed(F::kBT);
};

// acc (or, first, the term alone) + a * x, for a constant a.
__attribute__((always_inline)) inline __m512 term(bool first, __m512 acc, float a, __m512 x) {
  if (a == 1) return first ? x : _mm512_add_ps(acc, x);
  if (a == -1) return first ? _mm512_sub_ps(_mm512_setzero_ps(), x) : _mm512_sub_ps(acc, x);
  return first ? _mm512_mul_ps(_mm512_set1_ps(a), x)
               : _mm512_fmadd_ps(_mm512_set1_ps(a), x, acc);
}

// sum_k row[k] x(k) for a constant row, in order of k.
template <int K, class X>
__attribute__((always_inline)) inline __m512 dot(const float (&row)[K], X&& x) {
  __m512 acc = _mm512_setzero_ps();
  bool first = true;
#pragma GCC unroll 8
  for (int k = 0; k < K; ++k) {
    if (row[k] == 0) continue;
    acc = term(first, acc, row[k], x(k));
    first = false;
  }
  return acc;
}

// out = L in (out[i][j] = sum_k L[i][k] in[k][j]).
template <int R, int K, int C>
__attribute__((always_inline)) inline void left(const Mat<R, K>& l, const __m512 (&in)[K][C],
                                                __m512 (&out)[R][C]) {
#pragma GCC unroll 8
  for (int i = 0; i < R; ++i)
#pragma GCC unroll 8
    for (int j = 0; j < C; ++j) out[i][j] = dot(l.v[i], [&](int k) { return in[k][j]; });
}

// out = in R^T (out[i][j] = sum_k in[i][k] R[j][k]).
template <int R, int K, int C>
__attribute__((always_inline)) inline void right(const __m512 (&in)[C][K], const Mat<R, K>& r,
                                                 __m512 (&out)[C][R]) {
#pragma GCC unroll 8
  for (int i = 0; i < C; ++i)
#pragma GCC unroll 8
    for (int j = 0; j < R; ++j) out[i][j] = dot(r.v[j], [&](int k) { return in[i][k]; });
}

// X' = L X L'^T for square-ish tiles: the two-sided transforms above.
template <int R, int K>
__attribute__((always_inline)) inline void sandwich(const Mat<R, K>& l, const __m512 (&in)[K][K],
                                                    __m512 (&out)[R][R]) {
  __m512 tmp[R][K];
  left(l, in, tmp);
  right(tmp, l, out);
}

}  // namespace kp::trainer_detail::winograd
#endif
