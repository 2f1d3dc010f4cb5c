// SoftmaxLoss (softmax_loss.h): a hand-computed case, a bad label, and the same bits split
// across threads as on one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>
#include <vector>

#include "models/trainer/softmax_loss.h"
#include "models/trainer/worker_pool.h"

namespace kp::trainer_detail {
namespace {

// Logits (0, ln 3): softmax (1/4, 3/4). Sample 0 labelled 1: loss -ln(3/4), right; sample 1
// labelled 0: loss -ln(1/4), wrong. Mean-loss gradient (p - onehot) / 2.
TEST(SoftmaxLoss, MatchesAHandComputedBatchOfTwo) {
  SoftmaxLoss<double> loss(2, 4);
  const double z[4] = {0, std::log(3.0), 0, std::log(3.0)};
  const int32_t labels[2] = {1, 0};
  double d[4];
  int64_t errors = 5;
  const double sum = loss(z, labels, 2, d, &errors, nullptr);
  EXPECT_NEAR(sum, -std::log(0.75) - std::log(0.25), 1e-15);
  EXPECT_EQ(errors, 6);  // added to what was there
  EXPECT_NEAR(d[0], 0.25 / 2, 1e-15);
  EXPECT_NEAR(d[1], (0.75 - 1) / 2, 1e-15);
  EXPECT_NEAR(d[2], (0.25 - 1) / 2, 1e-15);
  EXPECT_NEAR(d[3], 0.75 / 2, 1e-15);
}

TEST(SoftmaxLoss, ALabelOutsideTheClassesThrowsBeforeWriting) {
  SoftmaxLoss<float> loss(3, 2);
  const float z[6] = {1, 2, 3, 4, 5, 6};
  const int32_t labels[2] = {0, 3};
  float d[6] = {7, 7, 7, 7, 7, 7};
  EXPECT_THROW(loss(z, labels, 2, d, nullptr, nullptr), std::out_of_range);
  for (float v : d) EXPECT_EQ(v, 7.0f);
  EXPECT_THROW(loss(z, labels, 3, d, nullptr, nullptr), std::invalid_argument);  // > max batch
}

// Above the split threshold (256 samples): loss, gradient and error count bit-identical on 1,
// 2 and 3 threads.
TEST(SoftmaxLoss, SplitAcrossThreadsGivesTheSameBits) {
  const int64_t classes = 10, batch = 777;
  std::mt19937 rng(3);
  std::normal_distribution<float> g(0.0f, 3.0f);
  std::vector<float> z(static_cast<size_t>(classes * batch));
  for (float& v : z) v = g(rng);
  std::vector<int32_t> labels(static_cast<size_t>(batch));
  for (int32_t& l : labels) l = static_cast<int32_t>(rng() % classes);
  std::vector<float> d1(z.size());
  int64_t e1 = 0;
  SoftmaxLoss<float> one(classes, batch);
  const double s1 = one(z.data(), labels.data(), batch, d1.data(), &e1, nullptr);
  EXPECT_GT(e1, batch / 2);  // random logits: mostly wrong
  for (int threads : {2, 3}) {
    WorkerPool pool(threads);
    SoftmaxLoss<float> many(classes, batch);
    std::vector<float> d(z.size());
    int64_t e = 0;
    const double s = many(z.data(), labels.data(), batch, d.data(), &e, &pool);
    EXPECT_EQ(std::memcmp(&s, &s1, sizeof s), 0) << threads;
    EXPECT_EQ(e, e1) << threads;
    EXPECT_EQ(std::memcmp(d.data(), d1.data(), d.size() * sizeof(float)), 0) << threads;
  }
}

}  // namespace
}  // namespace kp::trainer_detail
