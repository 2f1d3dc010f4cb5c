// The input gradient column by column (dense_columns.h) against dot products in double, with a
// bound derived from its summation: each lane of its two chains adds at most rows / 32 + 1
// products, then the chains and the 16 lanes are added (5 more roundings), so the float result
// errs by at most (rows / 32 + 6) 2^-24 times the sum of the products' magnitudes. Rows of 1024,
// 1000 (an 8-row tail) and 37 (only tail); every batch it takes. A part of the columns is
// computed exactly as within the whole, and the rule takes the Simple CNN's fc1 at M=2..6 only.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "models/trainer/dense_columns.h"
#include "models/trainer/gemm.h"

namespace kp::trainer_detail {
namespace {

TEST(DenseColumns, InputGradientMatchesDoubleDotProducts) {
  if (!sgemm_available()) GTEST_SKIP() << "built without AVX-512";
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> u(-1, 1);
  const int64_t cols = 45;
  for (int64_t rows : {1024, 1000, 37})
    for (int64_t batch = 2; batch <= kColumnGradMaxBatch; ++batch) {
      std::vector<float> w(size_t(rows * cols)), dy(size_t(rows * batch));
      for (float& v : w) v = u(rng);
      for (float& v : dy) v = u(rng);
      const int64_t ldx = cols + 3;
      std::vector<float> dx(size_t(ldx * batch), -9.0f), parts = dx;
      input_grad_columns(w.data(), rows, 0, cols, dy.data(), batch, dx.data(), ldx);
      input_grad_columns(w.data(), rows, 0, 20, dy.data(), batch, parts.data(), ldx);
      input_grad_columns(w.data(), rows, 20, cols, dy.data(), batch, parts.data(), ldx);
      const double bound = (double(rows) / 32 + 6) * std::ldexp(1.0, -24);
      for (int64_t s = 0; s < batch; ++s) {
        for (int64_t j = 0; j < cols; ++j) {
          double ref = 0, mag = 0;
          for (int64_t i = 0; i < rows; ++i) {
            const double t = double(w[size_t(i + j * rows)]) * dy[size_t(i + s * rows)];
            ref += t;
            mag += std::abs(t);
          }
          const float got = dx[size_t(j + s * ldx)];
          ASSERT_NEAR(got, ref, bound * mag) << "rows " << rows << " batch " << batch;
          ASSERT_EQ(parts[size_t(j + s * ldx)], got) << "rows " << rows << " j " << j;
        }
        for (int64_t j = cols; j < ldx; ++j) ASSERT_EQ(dx[size_t(j + s * ldx)], -9.0f);
      }
    }
}

TEST(DenseColumns, RuleTakesLargeLayersAtBatchesWhoseGradientFitsL1) {
  if (!sgemm_available()) GTEST_SKIP() << "built without AVX-512";
  EXPECT_TRUE(input_grad_by_columns(1024, 3136, 2));   // the Simple CNN's fc1
  EXPECT_TRUE(input_grad_by_columns(1024, 3136, 6));   // dy 24 KiB
  EXPECT_FALSE(input_grad_by_columns(1024, 3136, 7));  // dy 28 KiB
  EXPECT_FALSE(input_grad_by_columns(1024, 3136, 1));  // batch 1 has its own path
  EXPECT_FALSE(input_grad_by_columns(256, 784, 4));    // the MLP's fc1: 0.2 M weights
}

}  // namespace
}  // namespace kp::trainer_detail
