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
// skipping zeros and using add/sub for +-1 (fully unrolled, so the skips cost nothing); the
// step's four hot transforms have factored forms further below (BtMap, BMap, AtMap, AMap).
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
#pragma GCC unroll 16
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
#pragma GCC unroll 16
  for (int i = 0; i < R; ++i)
#pragma GCC unroll 16
    for (int j = 0; j < C; ++j) out[i][j] = dot(l.v[i], [&](int k) { return in[k][j]; });
}

// out = in R^T (out[i][j] = sum_k in[i][k] R[j][k]).
template <int R, int K, int C>
__attribute__((always_inline)) inline void right(const __m512 (&in)[C][K], const Mat<R, K>& r,
                                                 __m512 (&out)[C][R]) {
#pragma GCC unroll 16
  for (int i = 0; i < C; ++i)
#pragma GCC unroll 16
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

// The four transforms of a step's hot loops as 1-D maps y = L x, factored because the points
// come in pairs +-p (1, 2, 1/2): a polynomial at +-p is its even part plus or minus its odd
// part. So B^T's and A's rows come in pairs that agree at even columns and are opposite at odd
// ones, both E + O and E - O of one even sum E and one odd sum O; A^T and B, their transposes,
// take sums and differences of neighbouring inputs first. Vector operations per 1-D map: 26 for B^T
// where the row-by-row dot() takes 43, 27 for B (40), 16 for A^T (22) and 14 for A (18). Exact
// for each entry alone (FastTransformsEqualTheirMatrices); a sum rounds in another order than
// dot()'s. Simple CNN steps on one thread +1.1% and +1.5% (faster in 35 of 40 and 22 of 30
// in-process rounds, Zen 4): less than the operations saved, as the transforms' 64 strided
// stores per tile now bound them as much as their arithmetic (and, until sandwich_io() below,
// as many again copying the tiles through the stack).

// The constant c in every lane.
__attribute__((always_inline)) inline __m512 splat(float c) { return _mm512_set1_ps(c); }

struct BtMap {  // B^T x, 8 -> 8
  static constexpr int kIn = 8, kOut = 8;
  __attribute__((always_inline)) static void apply(const __m512 (&x)[8], __m512 (&y)[8]) {
    y[0] = _mm512_fmadd_ps(splat(21.0f / 4), _mm512_sub_ps(x[2], x[4]), _mm512_sub_ps(x[6], x[0]));
    y[7] = _mm512_fmadd_ps(splat(21.0f / 4), _mm512_sub_ps(x[3], x[5]), _mm512_sub_ps(x[7], x[1]));
    const __m512 e1 = _mm512_fmadd_ps(splat(-17.0f / 4), x[4], _mm512_add_ps(x[2], x[6]));
    const __m512 o1 = _mm512_fmadd_ps(splat(-17.0f / 4), x[3], _mm512_add_ps(x[1], x[5]));
    y[1] = _mm512_add_ps(e1, o1);
    y[2] = _mm512_sub_ps(e1, o1);
    const __m512 e2 =
        _mm512_fmadd_ps(splat(-5.0f / 4), x[4], _mm512_fmadd_ps(splat(0.25f), x[2], x[6]));
    __m512 o2 = _mm512_fmadd_ps(splat(-5.0f / 2), x[3], _mm512_mul_ps(splat(0.5f), x[1]));
    o2 = _mm512_fmadd_ps(splat(2), x[5], o2);
    y[3] = _mm512_add_ps(e2, o2);
    y[4] = _mm512_sub_ps(e2, o2);
    const __m512 e3 = _mm512_fmadd_ps(splat(-5), x[4], _mm512_fmadd_ps(splat(4), x[2], x[6]));
    __m512 o3 = _mm512_fmadd_ps(splat(-5.0f / 2), x[3], _mm512_mul_ps(splat(2), x[1]));
    o3 = _mm512_fmadd_ps(splat(0.5f), x[5], o3);
    y[5] = _mm512_add_ps(e3, o3);
    y[6] = _mm512_sub_ps(e3, o3);
  }
};

struct BMap {  // B x (B^T's transpose), 8 -> 8
  static constexpr int kIn = 8, kOut = 8;
  __attribute__((always_inline)) static void apply(const __m512 (&x)[8], __m512 (&y)[8]) {
    const __m512 s1 = _mm512_add_ps(x[1], x[2]), d1 = _mm512_sub_ps(x[1], x[2]);
    const __m512 s2 = _mm512_add_ps(x[3], x[4]), d2 = _mm512_sub_ps(x[3], x[4]);
    const __m512 s3 = _mm512_add_ps(x[5], x[6]), d3 = _mm512_sub_ps(x[5], x[6]);
    y[0] = _mm512_sub_ps(_mm512_setzero_ps(), x[0]);
    const __m512 t1 = _mm512_fmadd_ps(splat(2), d3, _mm512_fmadd_ps(splat(0.5f), d2, d1));
    y[1] = _mm512_sub_ps(t1, x[7]);
    const __m512 t2 =
        _mm512_fmadd_ps(splat(0.25f), s2, _mm512_fmadd_ps(splat(21.0f / 4), x[0], s1));
    y[2] = _mm512_fmadd_ps(splat(4), s3, t2);
    const __m512 t3 = _mm512_fmadd_ps(splat(-5.0f / 2), d2, _mm512_mul_ps(splat(-17.0f / 4), d1));
    y[3] = _mm512_fmadd_ps(splat(21.0f / 4), x[7], _mm512_fmadd_ps(splat(-5.0f / 2), d3, t3));
    const __m512 t4 =
        _mm512_fmadd_ps(splat(-17.0f / 4), s1, _mm512_mul_ps(splat(-21.0f / 4), x[0]));
    y[4] = _mm512_fmadd_ps(splat(-5), s3, _mm512_fmadd_ps(splat(-5.0f / 4), s2, t4));
    const __m512 t5 = _mm512_fmadd_ps(splat(0.5f), d3, _mm512_fmadd_ps(splat(2), d2, d1));
    y[5] = _mm512_fnmadd_ps(splat(21.0f / 4), x[7], t5);
    y[6] = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(x[0], s1), s2), s3);
    y[7] = x[7];
  }
};

struct AtMap {  // A^T x, 8 -> 4
  static constexpr int kIn = 8, kOut = 4;
  __attribute__((always_inline)) static void apply(const __m512 (&x)[8], __m512 (&y)[4]) {
    const __m512 s1 = _mm512_add_ps(x[1], x[2]), d1 = _mm512_sub_ps(x[1], x[2]);
    const __m512 s2 = _mm512_add_ps(x[3], x[4]), d2 = _mm512_sub_ps(x[3], x[4]);
    const __m512 s3 = _mm512_add_ps(x[5], x[6]), d3 = _mm512_sub_ps(x[5], x[6]);
    y[0] = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(x[0], s1), s2), s3);
    y[1] = _mm512_fmadd_ps(splat(0.5f), d3, _mm512_fmadd_ps(splat(2), d2, d1));
    y[2] = _mm512_fmadd_ps(splat(0.25f), s3, _mm512_fmadd_ps(splat(4), s2, s1));
    y[3] =
        _mm512_add_ps(_mm512_fmadd_ps(splat(0.125f), d3, _mm512_fmadd_ps(splat(8), d2, d1)), x[7]);
  }
};

struct AMap {  // A x (A^T's transpose), 4 -> 8
  static constexpr int kIn = 4, kOut = 8;
  __attribute__((always_inline)) static void apply(const __m512 (&x)[4], __m512 (&y)[8]) {
    const __m512 e1 = _mm512_add_ps(x[0], x[2]), o1 = _mm512_add_ps(x[1], x[3]);
    const __m512 e2 = _mm512_fmadd_ps(splat(4), x[2], x[0]);
    const __m512 o2 = _mm512_fmadd_ps(splat(8), x[3], _mm512_mul_ps(splat(2), x[1]));
    const __m512 e3 = _mm512_fmadd_ps(splat(0.25f), x[2], x[0]);
    const __m512 o3 = _mm512_fmadd_ps(splat(0.125f), x[3], _mm512_mul_ps(splat(0.5f), x[1]));
    y[0] = x[0];
    y[1] = _mm512_add_ps(e1, o1);
    y[2] = _mm512_sub_ps(e1, o1);
    y[3] = _mm512_add_ps(e2, o2);
    y[4] = _mm512_sub_ps(e2, o2);
    y[5] = _mm512_add_ps(e3, o3);
    y[6] = _mm512_sub_ps(e3, o3);
    y[7] = x[3];
  }
};

// out = L in L^T with L given as a 1-D map (above): L down each column, then along each row,
// reading in[k][j] as load(k, j) and handing out[i][j] to store(i, j, value) as each row is
// done. Why not arrays in and out: GCC kept them on the stack (81 vectors each for 9 x 9 tiles,
// in 32 registers), so each transform copied its input tile there and its output tile back
// out, doubling the zmm stores that bound the transforms. Read and written in place, conv2 of
// the Simple CNN at b=128 (2-sample calls): forward 6.6 -> 6.15 ms, backward 12.3 -> 10.8 ms;
// whole steps on one thread +5.4% (faster in 28 of 30 in-process rounds), M=32 +4.1% (17/20).
// The same operations in the same order: the same values.
template <class Map, class Load, class Store>
__attribute__((always_inline)) inline void sandwich_io(Load&& load, Store&& store) {
  __m512 tmp[Map::kOut][Map::kIn];
#pragma GCC unroll 16
  for (int j = 0; j < Map::kIn; ++j) {
    __m512 x[Map::kIn], y[Map::kOut];
#pragma GCC unroll 16
    for (int k = 0; k < Map::kIn; ++k) x[k] = load(k, j);
    Map::apply(x, y);
#pragma GCC unroll 16
    for (int i = 0; i < Map::kOut; ++i) tmp[i][j] = y[i];
  }
#pragma GCC unroll 16
  for (int i = 0; i < Map::kOut; ++i) {
    __m512 y[Map::kOut];
    Map::apply(tmp[i], y);
#pragma GCC unroll 16
    for (int j = 0; j < Map::kOut; ++j) store(i, j, y[j]);
  }
}

// sandwich_io() over arrays.
template <class Map>
__attribute__((always_inline)) inline void sandwich(const __m512 (&in)[Map::kIn][Map::kIn],
                                                    __m512 (&out)[Map::kOut][Map::kOut]) {
  sandwich_io<Map>([&](int k, int j) { return in[k][j]; },
                   [&](int i, int j, __m512 v) { out[i][j] = v; });
}

// A tile size's matrices and its four hot maps, as WinogradTiles<> takes them.
template <class F, class BtM, class BM, class AtM, class AM>
struct Scheme {
  using Matrices = F;
  using Bt = BtM;
  using B = BM;
  using At = AtM;
  using A = AM;
};
using F4Scheme = Scheme<F4x4, BtMap, BMap, AtMap, AMap>;

}  // namespace kp::trainer_detail::winograd
#endif
