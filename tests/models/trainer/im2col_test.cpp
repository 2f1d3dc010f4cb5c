// im2col's float fast paths (AVX-512: one channel at stride 1 as in the Simple CNN's conv1,
// patches of 17-32 floats otherwise) against the general loop (double), which copies the same
// inputs and zeros: every column entry equal, and every entry written (the buffer starts as
// NaN). Output rows of 35 pixels give segments of 16, 16 and 3; a pool of 3 threads starts
// pixel ranges mid-row.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/network_spec.h"
#include "models/trainer/im2col.h"
#include "models/trainer/worker_pool.h"
#include "tests/models/trainer/test_networks.h"

namespace kp {
namespace {

using trainer_detail::Im2col;
using trainer_detail::WorkerPool;

void expect_same_columns(Shape in, int64_t kernel, int64_t stride, Padding padding, int threads) {
  NetworkSpec s;
  s.input = in;
  s.classes = 2;
  s.layers = {test::layer_spec(LayerKind::Conv2d, 3, kernel, stride, padding),
              test::layer_spec(LayerKind::Flatten), test::layer_spec(LayerKind::Dense, 2),
              test::layer_spec(LayerKind::SoftmaxCrossEntropy)};
  const ResolvedNetwork net = resolve_network(s);
  const ResolvedLayer& l = net.layers[0];
  const Im2col<float> f(l);
  const Im2col<double> d(l);
  const int64_t batch = 4, n0 = 1, nb = 3, per_sample = in.elements();
  const int64_t entries = f.patch() * l.out.h * l.out.w * nb;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> xf(static_cast<size_t>(per_sample * batch));
  for (float& v : xf) v = u(rng);
  const std::vector<double> xd(xf.begin(), xf.end());
  std::vector<float> cf(static_cast<size_t>(entries), std::numeric_limits<float>::quiet_NaN());
  std::vector<double> cd(static_cast<size_t>(entries));
  std::unique_ptr<WorkerPool> pool;
  if (threads > 1) pool = std::make_unique<WorkerPool>(threads);
  f.to_columns(xf.data(), n0, nb, cf.data(), pool.get());
  d.to_columns(xd.data(), n0, nb, cd.data(), nullptr);
  const std::string where = std::to_string(in.c) + "x" + std::to_string(in.h) + "x" +
                            std::to_string(in.w) + " kernel " + std::to_string(kernel) +
                            " stride " + std::to_string(stride) + ", " +
                            std::to_string(threads) + " thread(s)";
  for (int64_t i = 0; i < entries; ++i)
    ASSERT_EQ(double(cf[static_cast<size_t>(i)]), cd[static_cast<size_t>(i)]) << where << ", " << i;
}

TEST(Im2col, FastPathsCopyWhatTheGeneralLoopCopies) {
  for (int threads : {1, 3}) {
    expect_same_columns({1, 28, 28}, 5, 1, Padding::Same, threads);  // the Simple CNN's conv1
    expect_same_columns({1, 9, 35}, 5, 1, Padding::Same, threads);
    expect_same_columns({1, 7, 20}, 5, 1, Padding::Valid, threads);  // 16 pixels a row
    expect_same_columns({1, 6, 3}, 5, 1, Padding::Same, threads);    // padding on both sides
    expect_same_columns({1, 9, 9}, 5, 2, Padding::Same, threads);    // stride 2: two registers
    expect_same_columns({2, 9, 9}, 4, 2, Padding::Same, threads);
  }
}

}  // namespace
}  // namespace kp
