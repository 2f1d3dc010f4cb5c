// The factored F(4x4, 5x5) transforms (winograd_transforms.h) and F(5x5, 5x5)'s generic paired
// ones (winograd_f5.h) against their matrices. Each map is
// linear, so its value on every unit vector pins it down: lane l of the input is e_(l mod K),
// and with one nonzero input every operation adds zeros to a single exact product (the entries
// are small multiples of 1/16), so each output lane must equal its matrix entry bit for bit. The
// two-sided sandwich is then checked on random tiles against the row-by-row dot() form, which
// adds the same terms in another order: within 1e-6 of the terms' magnitudes (B^T's absolute
// row sums are at most 15).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "models/trainer/winograd_f5.h"
#include "models/trainer/winograd_transforms.h"

namespace kp {
namespace {

#ifdef __AVX512F__
using namespace trainer_detail::winograd;

template <class Map, int R, int K>
void expect_map_is(const Mat<R, K>& l, const std::string& name) {
  static_assert(Map::kOut == R && Map::kIn == K);
  __m512 x[K], y[R];
  alignas(64) float lane[16];
  for (int k = 0; k < K; ++k) {
    for (int i = 0; i < 16; ++i) lane[i] = i % K == k ? 1.0f : 0.0f;
    x[k] = _mm512_load_ps(lane);
  }
  Map::apply(x, y);
  for (int r = 0; r < R; ++r) {
    _mm512_store_ps(lane, y[r]);
    for (int i = 0; i < 16; ++i) EXPECT_EQ(lane[i], l.v[r][i % K]) << name << " row " << r;
  }
}

template <class Map, int R, int K>
void expect_sandwich_near(const Mat<R, K>& l, const std::string& name) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1, 1);
  __m512 in[K][K], fast[R][R], slow[R][R];
  alignas(64) float lane[16];
  for (int i = 0; i < K; ++i)
    for (int j = 0; j < K; ++j) {
      for (float& e : lane) e = u(rng);
      in[i][j] = _mm512_load_ps(lane);
    }
  sandwich<Map>(in, fast);
  sandwich(l, in, slow);
  double scale = 0;  // bound on |L| |in| |L|^T: |in| <= 1
  for (int i = 0; i < R; ++i)
    for (int a = 0; a < K; ++a)
      for (int b = 0; b < K; ++b)
        scale = std::max(scale, double(std::abs(l.v[i][a])) * std::abs(l.v[i][b]));
  scale *= K * K;
  alignas(64) float f[16], s[16];
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < R; ++j) {
      _mm512_store_ps(f, fast[i][j]);
      _mm512_store_ps(s, slow[i][j]);
      for (int q = 0; q < 16; ++q)
        EXPECT_NEAR(f[q], s[q], 1e-6 * scale) << name << " " << i << "," << j;
    }
}
#endif

#ifdef __AVX512F__
// A tile size's four hot maps (its winograd::Scheme) against its matrices.
template <class S>
void expect_scheme(const std::string& tiles) {
  using F = typename S::Matrices;
  using T = Transposes<F>;
  expect_map_is<typename S::Bt>(F::kBT, tiles + " B^T");
  expect_map_is<typename S::B>(T::kB, tiles + " B");
  expect_map_is<typename S::At>(F::kAT, tiles + " A^T");
  expect_map_is<typename S::A>(T::kA, tiles + " A");
  expect_sandwich_near<typename S::Bt>(F::kBT, tiles + " B^T d B");
  expect_sandwich_near<typename S::B>(T::kB, tiles + " B dV B^T");
  expect_sandwich_near<typename S::At>(F::kAT, tiles + " A^T M A");
  expect_sandwich_near<typename S::A>(T::kA, tiles + " A dY A^T");
}
#endif

TEST(WinogradTransforms, FastTransformsEqualTheirMatrices) {
#ifdef __AVX512F__
  expect_scheme<F4Scheme>("4x4");
#else
  GTEST_SKIP() << "built without AVX-512";
#endif
}

TEST(WinogradTransforms, PairedF5TransformsEqualTheirMatrices) {
#ifdef __AVX512F__
  expect_scheme<F5Scheme>("5x5");
#else
  GTEST_SKIP() << "built without AVX-512";
#endif
}

}  // namespace
}  // namespace kp
