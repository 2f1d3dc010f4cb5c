// Batch 1 and small batches (2..24) cut each large weight matrix into fixed column parts
// (matvec_parts.h): the forward adds the parts' products in order, the input gradient and the
// update take a part's columns each. The MLP 784-256-256-10 has two such matrices (fc1, fc2;
// fc3's 2,560 elements are one part).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "models/trainer/gemm.h"
#include "models/trainer/matvec_parts.h"
#include "models/trainer/network.h"
#include "models/trainer/trainer.h"
#include "models/trainer/zoo.h"
#include "tests/models/trainer/synthetic_task.h"

namespace kp {
namespace {

using trainer_detail::by_column_parts;
using trainer_detail::kColumnPartsMaxBatch;
using trainer_detail::kMatVecParts;
using trainer_detail::kMatVecSplitMin;
using trainer_detail::matvec_parts;

TEST(MatVecParts, OnlyLargeMatricesAreCut) {
  EXPECT_EQ(matvec_parts(kMatVecSplitMin - 1), 1);
  EXPECT_EQ(matvec_parts(kMatVecSplitMin), kMatVecParts);
  EXPECT_GE(kMatVecParts, 2);  // else the tests below would not cut anything
  EXPECT_GE(784 * 256, kMatVecSplitMin);
  EXPECT_GE(256 * 256, kMatVecSplitMin);
  EXPECT_TRUE(by_column_parts(1, 10));  // batch 1: always (one part when small)
  EXPECT_TRUE(by_column_parts(16, kMatVecSplitMin));
  EXPECT_FALSE(by_column_parts(16, kMatVecSplitMin - 1));
  EXPECT_FALSE(by_column_parts(kColumnPartsMaxBatch + 1, kMatVecSplitMin));
}

// The float network at `batch` against the same parameters and samples in double, whose
// products are Eigen's, without parts: loss, every gradient and the input gradient, to 1e-5
// relative (a float dot product of 784 terms is good to ~1e-6). Batch 1 is compared with the
// double network at batch 2 with the sample twice (the mean over two equal samples is the
// sample's loss and gradient, and batch 2 takes the GEMM path, so the reference shares no code
// with the parts); batch 16 takes the float parts' sgemm products.
void expect_float_matches_double(int64_t batch, int threads) {
  const ResolvedNetwork net = resolve_network(mlp_784_256_256_10());
  const int64_t ref_batch = batch == 1 ? 2 : batch;
  Network<float> f(net, batch, 3, WeightInit::He, threads);
  Network<double> d(net, ref_batch, 3);
  std::copy(f.params(), f.params() + f.num_params(), d.params());
  const int64_t in = f.input_elements() * batch;
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> u(0, 1);
  for (int64_t i = 0; i < in; ++i) d.input()[i] = f.input()[i] = u(rng);
  if (batch == 1) std::copy(d.input(), d.input() + in, d.input() + in);
  f.set_compute_input_grad(true);
  d.set_compute_input_grad(true);
  std::vector<int32_t> labels(static_cast<size_t>(ref_batch));
  for (int64_t n = 0; n < ref_batch; ++n) labels[size_t(n)] = batch == 1 ? 7 : int32_t(n % 10);
  const double lf = f.forward_backward(labels.data(), batch);
  const double ld = d.forward_backward(labels.data(), ref_batch);
  EXPECT_NEAR(lf, ld, 1e-5 * std::abs(ld));
  double gmax = 0;
  for (int64_t i = 0; i < d.num_params(); ++i) gmax = std::max(gmax, std::abs(d.grads()[i]));
  ASSERT_GT(gmax, 0.0);
  for (int64_t i = 0; i < d.num_params(); ++i)
    ASSERT_NEAR(f.grads()[i], d.grads()[i], 1e-5 * gmax) << "parameter " << i;
  const double scale = batch == 1 ? 2 : 1;  // batch 1: the pair's mean halves each sample's
  for (int64_t i = 0; i < in; ++i)
    ASSERT_NEAR(f.input_grad()[i], scale * d.input_grad()[i], 1e-5 * gmax) << "input " << i;
}

TEST(MatVecParts, ForwardAndGradientsMatchDouble) {
  for (int64_t batch : {1, 16})
    for (int threads : {1, 2}) {
      SCOPED_TRACE("batch " + std::to_string(batch) + ", " + std::to_string(threads) +
                   " thread(s)");
      expect_float_matches_double(batch, threads);
    }
}

// On 1, 2 and 3 threads (3: more threads than parts, one of them idle in each loop): the same
// losses, parameters and gradient norms, bit for bit, with the update's outer product (batch 1)
// or product (batch 16) formed inside the optimizer (the trainer defers it).
void expect_same_trial_on_any_thread_count(int64_t batch) {
  const ResolvedNetwork net = resolve_network(mlp_784_256_256_10());
  static const Dataset data = make_synthetic_dataset({1, 28, 28}, 10, 64, 0, 5);
  TrialConfig c = test::synthetic_config(9);
  c.batch = batch;
  c.grad_sq_norm = true;
  std::vector<std::vector<double>> losses, norms;
  std::vector<std::vector<float>> params;
  for (int threads : {1, 2, 3}) {
    c.threads = threads;
    Trainer t(net, data, c);
    losses.emplace_back();
    norms.emplace_back();
    for (int step = 0; step < 6; ++step) {
      losses.back().push_back(t.step());
      norms.back().push_back(t.last_grad_sq_norm());
    }
    // Above batch 1 the optimizer forms the gradient only with the AVX-512 sgemm (layers.h).
    ASSERT_EQ(!t.network().deferred_weight_grads().empty(),
              batch == 1 || trainer_detail::sgemm_available());
    params.emplace_back(t.network().params(), t.network().params() + t.network().num_params());
  }
  for (size_t i = 1; i < losses.size(); ++i) {
    EXPECT_EQ(losses[i], losses[0]) << "trial " << i;
    EXPECT_EQ(norms[i], norms[0]) << "trial " << i;
    EXPECT_EQ(params[i], params[0]) << "trial " << i;
  }
  EXPECT_GT(norms[0][0], 0.0);
}

TEST(MatVecParts, SmallBatchTrialIsBitIdenticalOnAnyThreadCount) {
  if (!fast_path_available()) GTEST_SKIP() << "a test of the fused fast path";
  for (int64_t batch : {1, 16}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    expect_same_trial_on_any_thread_count(batch);
  }
}

}  // namespace
}  // namespace kp
