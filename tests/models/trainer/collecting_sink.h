#pragma once
// A TileSink for the GEMM tests (gemm_test.cpp, gemm_streamed_a_test.cpp): collects the tiles an
// sgemm hands it into a column-major m x n matrix, counts how often each element came, and how
// many runs of consecutive tiles shared a column tile (the order a fused update walks them in).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "models/trainer/gemm.h"

namespace kp::test {

class CollectingSink final : public trainer_detail::TileSink {
 public:
  CollectingSink(int64_t m, int64_t n) : m_m(m), values(size_t(m * n)), hits(size_t(m * n)) {}
  void tile(int64_t i0, int64_t j0, int64_t rows, int64_t cols, const float* t, int64_t ld,
            int part) override {
    ASSERT_GE(part, 0);
    if (j0 != last_j0) ++column_runs;
    last_j0 = j0;
    for (int64_t j = 0; j < cols; ++j)
      for (int64_t i = 0; i < rows; ++i) {
        values[size_t(i0 + i + (j0 + j) * m_m)] = t[i + j * ld];
        ++hits[size_t(i0 + i + (j0 + j) * m_m)];
      }
  }
  int64_t m_m;
  std::vector<float> values;
  std::vector<int> hits;
  int64_t last_j0 = -1, column_runs = 0;
};

}  // namespace kp::test
