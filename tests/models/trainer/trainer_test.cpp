// Training trials on the synthetic dataset: learning, determinism (also with a concurrent trial),
// the gradient-norm hook and divergence detection.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <thread>
#include <vector>

#include "models/trainer/gemm.h"
#include "models/trainer/trainer.h"
#include "models/trainer/zoo.h"
#include "tests/models/trainer/synthetic_task.h"
#include "tests/models/trainer/test_networks.h"

namespace kp {
namespace {

ResolvedNetwork small_cnn() {
  auto l = [](LayerKind k, int64_t n = 0, int64_t kernel = 1, int64_t stride = 1) {
    return test::layer_spec(k, n, kernel, stride, Padding::Same);
  };
  NetworkSpec s;
  s.input = {1, 8, 8};
  s.classes = 4;
  s.layers = {l(LayerKind::Conv2d, 4, 3), l(LayerKind::Relu), l(LayerKind::MaxPool, 0, 2, 2),
              l(LayerKind::Flatten), l(LayerKind::Dense, 16), l(LayerKind::Relu),
              l(LayerKind::Dense, 4), l(LayerKind::SoftmaxCrossEntropy)};
  return resolve_network(s);
}

const Dataset& data() { return test::synthetic_data(); }
TrialConfig config(uint64_t seed) { return test::synthetic_config(seed); }

class LossRecorder : public StepObserver {
 public:
  void on_step(int64_t, double loss, const Trainer& t) override {
    losses.push_back(loss);
    grad_sq.push_back(t.last_grad_sq_norm());
  }
  std::vector<double> losses, grad_sq;
};

TEST(Trainer, LearnsTheSyntheticTask) {
  const TrialResult r = train_trial(small_cnn(), data(), config(1));
  ASSERT_FALSE(r.curve.empty());
  EXPECT_FALSE(r.diverged);
  ASSERT_TRUE(r.steps_to_target.has_value());
  EXPECT_LE(r.curve.back().validation_error, 0.02);
  EXPECT_GT(r.mean_update_s, 0.0);
  EXPECT_GE(r.wall_time_s, r.mean_update_s * double(r.steps));
}

TEST(Trainer, SameSeedIsBitIdenticalEvenAlongsideAnotherTrial) {
  const ResolvedNetwork net = small_cnn();
  LossRecorder a, b, other;
  TrialConfig c = config(5), c_other = config(6);
  c.target_error = -1;  // run the whole budget
  c.grad_sq_norm = c_other.grad_sq_norm = true;  // LossRecorder reads it
  train_trial(net, data(), c, 0, &a);
  std::thread t([&] { train_trial(net, data(), c_other, 0, &other); });
  train_trial(net, data(), c, 0, &b);
  t.join();
  ASSERT_EQ(a.losses.size(), 200u);
  EXPECT_EQ(a.losses, b.losses);  // exact: same seed, same arithmetic
  EXPECT_NE(a.losses, other.losses);
}

TEST(Trainer, GradientNormHook) {
  const ResolvedNetwork net = small_cnn();
  TrialConfig c = config(2);
  c.grad_sq_norm = true;
  Trainer t(net, data(), c);
  t.network().set_defer_weight_grads(false);  // every gradient written to grads()
  t.step();
  ASSERT_TRUE(t.network().deferred_weight_grads().empty());
  const float* g = t.network().grads();
  double sq = 0;
  for (int64_t i = 0; i < t.network().num_params(); ++i) sq += double(g[i]) * g[i];
  EXPECT_GT(sq, 0.0);
  EXPECT_DOUBLE_EQ(t.last_grad_sq_norm(), sq);
}

// The dense weight gradients are formed inside the optimizer's update (the outer product at
// batch 1, the GEMM with the update as its epilogue up to kFusedMaxBatch); the result must match
// the plain path (gradient written, then a separate update): bit for bit above batch 1 (the same
// float operations per parameter), up to float rounding at batch 1 (Eigen's outer product), and
// the gradient norm up to the order of its sum.
void check_fused_update_matches_the_plain_path(int64_t batch, bool expect_fused,
                                               const ResolvedNetwork& net = small_cnn(),
                                               double learning_rate = 0,
                                               OptimizerKind kind = OptimizerKind::Nesterov) {
  TrialConfig c = config(8);
  c.grad_sq_norm = true;
  if (learning_rate > 0) c.optimizer.learning_rate = learning_rate;
  c.optimizer.kind = kind;
  if (kind == OptimizerKind::Sgd) c.optimizer.momentum = 0;
  c.batch = batch;
  c.optimizer.weight_decay = 1e-3;
  Trainer t(net, data(), c);
  Network<float> plain(net, t.network().max_batch(), c.seed);
  Optimizer opt(c.optimizer, plain.num_params());
  const int64_t n = plain.num_params(), per = plain.input_elements();
  for (int step = 0; step < 20; ++step) {
    t.step();
    ASSERT_EQ(t.network().deferred_weight_grads().empty(), !expect_fused) << "batch " << batch;
    // The same samples through the plain path: the trainer's input buffer still holds them.
    std::copy(t.network().input(), t.network().input() + per * batch, plain.input());
    plain.forward_backward(t.last_labels(), batch);
    double sq = 0;
    for (int64_t i = 0; i < n; ++i) sq += double(plain.grads()[i]) * plain.grads()[i];
    opt.step(plain.params(), plain.grads(), step);
    EXPECT_NEAR(t.last_grad_sq_norm(), sq, 1e-5 * sq) << "batch " << batch << " step " << step;
  }
  double max_diff = 0;
  for (int64_t i = 0; i < n; ++i)
    max_diff = std::max(max_diff, double(std::abs(t.network().params()[i] - plain.params()[i])));
  if (batch == 1)
    EXPECT_LT(max_diff, 1e-5);
  else
    EXPECT_EQ(max_diff, 0.0) << "batch " << batch;
}

TEST(Trainer, FusedUpdateMatchesThePlainPath) {
  if (!fast_path_available()) GTEST_SKIP() << "a test of the fused fast path";
  check_fused_update_matches_the_plain_path(1, true);
  check_fused_update_matches_the_plain_path(2, trainer_detail::sgemm_available());
  check_fused_update_matches_the_plain_path(16, trainer_detail::sgemm_available());
  check_fused_update_matches_the_plain_path(300, false);  // above kFusedMaxBatch (256)
}

// An MLP on the synthetic 8 x 8 task: two hidden ReLU layers of h1 and h2 units, 4 classes.
ResolvedNetwork two_hidden_dense(int64_t h1, int64_t h2) {
  auto l = [](LayerKind k, int64_t n = 0) { return test::layer_spec(k, n); };
  NetworkSpec s;
  s.input = {1, 8, 8};
  s.classes = 4;
  s.layers = {l(LayerKind::Flatten),  l(LayerKind::Dense, h1), l(LayerKind::Relu),
              l(LayerKind::Dense, h2), l(LayerKind::Relu),     l(LayerKind::Dense, 4),
              l(LayerKind::SoftmaxCrossEntropy)};
  return resolve_network(s);
}

// A dense layer of 1024 x 1024 weights (2^20: from memory, not cache) takes the update's paths
// for large matrices: column by column at batches 2, 4 and 8 (update_gemm.cpp,
// update_by_columns), 4-column tiles at 16 and 24, 8-column tiles over all rows as one block at
// 48 (gemm.cpp), and its forward at batches <= 24 streams the weights by sub-blocks
// (gemm_streamed_a.h). Each must leave the parameters bit-identical to the plain path's. At a
// tenth of the usual learning rate: this wide net fits the synthetic task within 20 steps
// otherwise, its gradients sinking to subnormal floats.
TEST(Trainer, FusedUpdateOfALargeMatrixMatchesThePlainPath) {
  if (!fast_path_available()) GTEST_SKIP() << "a test of the fused fast path";
  const ResolvedNetwork net = two_hidden_dense(1024, 1024);
  for (int64_t batch : {2, 4, 8, 16, 24, 48})
    check_fused_update_matches_the_plain_path(batch, trainer_detail::sgemm_available(), net,
                                              0.002);
}

// Dense layers of >= 32 outputs have full tiles of 32 rows, updated within the next tile's
// depth loop at batches 4 (4 of a tile's 12 columns in the loop, the rest after it) and 16
// (interleaved_update.h), and after each tile at 48 (update_gemm.cpp, full_tile): 64 outputs
// (two full tiles down each column) and 40 (a full tile, then 8 rows by the sink's general
// loop, which must first settle the waiting tile), over 64 inputs (tiles of 12 columns and a
// last of 4), with weight decay, under each optimizer. The parameters must stay bit-identical
// to the plain path's, and the squared norm agree.
TEST(Trainer, FusedUpdateOfFullTilesMatchesThePlainPath) {
  if (!fast_path_available()) GTEST_SKIP() << "a test of the fused fast path";
  const ResolvedNetwork net = two_hidden_dense(64, 40);
  for (OptimizerKind kind :
       {OptimizerKind::Sgd, OptimizerKind::Momentum, OptimizerKind::Nesterov})
    for (int64_t batch : {4, 16, 48})
      check_fused_update_matches_the_plain_path(batch, trainer_detail::sgemm_available(), net, 0,
                                                kind);
}

// Without grad_sq_norm the fused tiles skip the squares (interleaved at batches 4 and 16, full
// tiles at 48, the panels' copy of a 1024 x 1024 layer) and nothing else: the same losses and
// weights, bit for bit; asking for the norm then is a caller's bug.
TEST(Trainer, TheGradientNormSkippedWhenNotAskedChangesNoValue) {
  struct Case {
    ResolvedNetwork net;
    int64_t batch;
  };
  const Case cases[] = {{two_hidden_dense(64, 40), 4}, {two_hidden_dense(64, 40), 16},
                        {two_hidden_dense(64, 40), 48}, {two_hidden_dense(1024, 1024), 16},
                        {small_cnn(), 16}};
  for (const Case& k : cases) {
    TrialConfig c = config(11);
    c.batch = k.batch;
    c.optimizer.weight_decay = 1e-3;
    c.grad_sq_norm = true;
    Trainer with(k.net, data(), c);
    c.grad_sq_norm = false;
    Trainer without(k.net, data(), c);
    for (int step = 0; step < 4; ++step) {
      EXPECT_EQ(with.step(), without.step()) << "batch " << k.batch << " step " << step;
      EXPECT_GT(with.last_grad_sq_norm(), 0.0);
    }
    EXPECT_THROW(without.last_grad_sq_norm(), std::logic_error);
    const int64_t n = with.network().num_params();
    EXPECT_TRUE(std::equal(with.network().params(), with.network().params() + n,
                           without.network().params()))
        << "batch " << k.batch;
  }
}

// One trial on several threads (products split across them) computes the same floats as on
// one: losses and parameters bit-identical; the gradient norm only summed in another order, the
// same one in every run (whichever thread takes which chunk of a product).
void expect_two_threads_bit_identical(const ResolvedNetwork& net, const Dataset& d, TrialConfig c,
                                      int steps) {
  c.grad_sq_norm = true;
  Trainer one(net, d, c);
  c.threads = 2;
  Trainer two(net, d, c), again(net, d, c);
  std::vector<double> loss1, loss2;
  for (int step = 0; step < steps; ++step) {
    loss1.push_back(one.step());
    loss2.push_back(two.step());
    again.step();
    EXPECT_NEAR(two.last_grad_sq_norm(), one.last_grad_sq_norm(), 1e-5 * one.last_grad_sq_norm())
        << "batch " << c.batch << " step " << step;
    EXPECT_EQ(two.last_grad_sq_norm(), again.last_grad_sq_norm()) << "batch " << c.batch;
  }
  EXPECT_EQ(loss1, loss2) << "batch " << c.batch;
  const int64_t n = one.network().num_params();
  EXPECT_TRUE(std::equal(one.network().params(), one.network().params() + n,
                         two.network().params()))
      << "batch " << c.batch;
}

// The layers a trial splits besides its products: im2col over pixels, col2im over input rows
// (conv1: 2 chunks of samples, split within each), conv2 by Winograd (conv_winograd.h: 5x5 over
// 32 channels), its chunks of two samples over the threads at batch 16 and 17 (the last chunk
// one sample), its transformed weight gradients added in chunk order, max-pool over samples, the
// batch gather over samples, and ReLU over elements: the first one runs after its max-pool, on
// 14 x 14 x 32 x 16 = 100k elements, above its 64k threshold. At batch 4, too few chunks to deal
// out, conv2 runs on the calling thread.
TEST(Trainer, MultiThreadedConvTrialIsBitIdentical) {
  NetworkSpec s = simple_cnn();
  s.layers[0].filters = 32;
  s.layers[3].filters = 8;
  s.layers[7].units = 32;
  static const Dataset big = make_synthetic_dataset({1, 28, 28}, 10, 256, 0, 5);
  for (int64_t batch : {16, 17, 4}) {
    TrialConfig c = config(4);
    c.batch = batch;
    expect_two_threads_bit_identical(resolve_network(s), big, c, 4);
  }
}

// A convolution with 8 channels and small samples: its chunks hold 56 samples (1 MiB of
// columns), so at batch 60 a trial on one thread runs the implicit forward (conv_gemm.h) over a
// chunk of 56 samples and one of 4, and a trial on two threads, with too few chunks to deal
// out, runs im2col and sgemm split across the threads: the same losses and parameters.
TEST(Trainer, ImplicitConvForwardMatchesIm2colInTraining) {
  auto l = [](LayerKind k, int64_t n = 0, int64_t kernel = 1) {
    return test::layer_spec(k, n, kernel, 1, Padding::Same);
  };
  NetworkSpec s;
  s.input = {8, 8, 8};
  s.classes = 4;
  s.layers = {l(LayerKind::Conv2d, 8, 3), l(LayerKind::Relu), l(LayerKind::Flatten),
              l(LayerKind::Dense, 4), l(LayerKind::SoftmaxCrossEntropy)};
  static const Dataset d = make_synthetic_dataset({8, 8, 8}, 4, 256, 0, 5);
  TrialConfig c = config(7);
  c.batch = 60;
  expect_two_threads_bit_identical(resolve_network(s), d, c, 4);
}

TEST(Trainer, MultiThreadedTrialIsBitIdentical) {
  const ResolvedNetwork net = resolve_network(mlp_784_256_256_10());
  static const Dataset big = make_synthetic_dataset({1, 28, 28}, 10, 512, 0, 5);
  for (int64_t batch : {1, 16, 64, 300}) {
    TrialConfig c = config(6);
    c.batch = batch;
    expect_two_threads_bit_identical(net, big, c, 8);
  }
  TrialConfig bad = config(1);
  bad.threads = kMaxTrialThreads + 1;
  EXPECT_THROW(Trainer(net, big, bad), std::invalid_argument);
}

TEST(Trainer, StopAfterSteps) {
  TrialConfig c = config(3);
  c.target_error = -1;
  const TrialResult r = train_trial(small_cnn(), data(), c, 30);
  EXPECT_EQ(r.steps, 30);
  ASSERT_EQ(r.curve.size(), 1u);  // evaluated at the last step
  EXPECT_FALSE(r.steps_to_target.has_value());
}

TEST(Trainer, DetectsDivergence) {
  TrialConfig c = config(4);
  c.optimizer.learning_rate = 1e4;
  const TrialResult r = train_trial(small_cnn(), data(), c);
  EXPECT_TRUE(r.diverged);
  EXPECT_LT(r.steps, c.max_steps);
}

TEST(Trainer, RejectsBatchLargerThanTrainingSet) {
  TrialConfig c = config(1);
  c.batch = 100000;
  EXPECT_THROW(Trainer(small_cnn(), data(), c), std::invalid_argument);
}

}  // namespace
}  // namespace kp
