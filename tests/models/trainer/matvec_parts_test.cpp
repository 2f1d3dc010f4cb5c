// Batch 1 cuts each large weight matrix into fixed column parts (matvec_parts.h): the forward adds
// the parts' products in order, the input gradient and the update take a part's columns each.
// The MLP 784-256-256-10 has two such matrices (fc1, fc2; fc3's 2,560 elements are one part).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "models/trainer/matvec_parts.h"
#include "models/trainer/network.h"
#include "models/trainer/trainer.h"
#include "models/trainer/zoo.h"
#include "tests/models/trainer/synthetic_task.h"

namespace kp {
namespace {

using trainer_detail::kMatVecParts;
using trainer_detail::kMatVecSplitMin;
using trainer_detail::matvec_parts;

TEST(MatVecParts, OnlyLargeMatricesAreCut) {
  EXPECT_EQ(matvec_parts(kMatVecSplitMin - 1), 1);
  EXPECT_EQ(matvec_parts(kMatVecSplitMin), kMatVecParts);
  EXPECT_GE(kMatVecParts, 2);  // else the tests below would not cut anything
  EXPECT_GE(784 * 256, kMatVecSplitMin);
  EXPECT_GE(256 * 256, kMatVecSplitMin);
}

// The float network at batch 1 against the same parameters in double at batch 2 with the
// sample twice (the mean over two equal samples is the sample's loss and gradient, and batch 2
// takes the GEMM path, so the reference shares no code with the parts): loss, every gradient
// and the input gradient, to 1e-5 relative (a float dot product of 784 terms is good to ~1e-6).
TEST(MatVecParts, BatchOneForwardAndGradientsMatchDouble) {
  const ResolvedNetwork net = resolve_network(mlp_784_256_256_10());
  for (int threads : {1, 2}) {
    Network<float> f(net, 1, 3, WeightInit::He, threads);
    Network<double> d(net, 2, 3);
    std::copy(f.params(), f.params() + f.num_params(), d.params());
    const int64_t in = f.input_elements();
    std::mt19937 rng(4);
    std::uniform_real_distribution<float> u(0, 1);
    for (int64_t i = 0; i < in; ++i) d.input()[i] = d.input()[in + i] = f.input()[i] = u(rng);
    f.set_compute_input_grad(true);
    d.set_compute_input_grad(true);
    const int32_t labels[2] = {7, 7};
    const double lf = f.forward_backward(labels, 1), ld = d.forward_backward(labels, 2);
    EXPECT_NEAR(lf, ld, 1e-5 * std::abs(ld)) << threads << " thread(s)";
    double gmax = 0;
    for (int64_t i = 0; i < d.num_params(); ++i) gmax = std::max(gmax, std::abs(d.grads()[i]));
    ASSERT_GT(gmax, 0.0);
    for (int64_t i = 0; i < d.num_params(); ++i)
      ASSERT_NEAR(f.grads()[i], d.grads()[i], 1e-5 * gmax) << "parameter " << i;
    for (int64_t i = 0; i < in; ++i)  // the batch's mean: each sample's input gradient halved
      ASSERT_NEAR(f.input_grad()[i], 2 * d.input_grad()[i], 1e-5 * gmax) << "input " << i;
  }
}

// On 1, 2 and 3 threads (3: more threads than parts, one of them idle in each loop): the same
// losses, parameters and gradient norms, bit for bit, with the update's outer product formed
// inside the optimizer (the trainer defers it).
TEST(MatVecParts, BatchOneTrialIsBitIdenticalOnAnyThreadCount) {
  const ResolvedNetwork net = resolve_network(mlp_784_256_256_10());
  static const Dataset data = make_synthetic_dataset({1, 28, 28}, 10, 64, 0, 5);
  TrialConfig c = test::synthetic_config(9);
  c.batch = 1;
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
    ASSERT_FALSE(t.network().deferred_weight_grads().empty());
    params.emplace_back(t.network().params(), t.network().params() + t.network().num_params());
  }
  for (size_t i = 1; i < losses.size(); ++i) {
    EXPECT_EQ(losses[i], losses[0]) << "trial " << i;
    EXPECT_EQ(norms[i], norms[0]) << "trial " << i;
    EXPECT_EQ(params[i], params[0]) << "trial " << i;
  }
  EXPECT_GT(norms[0][0], 0.0);
}

}  // namespace
}  // namespace kp
