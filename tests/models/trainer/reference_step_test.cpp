// The reference step (plain layers on Eigen, plain update) against the fused fast path on the
// two networks the fast path was tuned for, the MLP and the Simple CNN, and the reference's own
// numerics contract (same seed, same bits at any thread count).
//
// Stated tolerance: one step's loss agrees within 1e-5 relative and every gradient within 1e-4
// of the largest gradient magnitude; over 30 training steps the losses agree within 1e-3
// relative for the first 10 and 1e-2 after (the two sum their products in different orders,
// Winograd's among them, so rounding differs from the first step on and the trajectories drift
// apart slowly: the Simple CNN's drift reached 2.9e-3 by step 29).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "models/trainer/trainer.h"
#include "models/trainer/zoo.h"
#include "tests/models/trainer/synthetic_task.h"

namespace kp {
namespace {

const Dataset& images() {
  static const Dataset d = make_synthetic_dataset({1, 28, 28}, 10, 512, 256, 3);
  return d;
}

double max_abs(const float* a, int64_t n) {
  double m = 0;
  for (int64_t i = 0; i < n; ++i) m = std::max(m, double(std::abs(a[i])));
  return m;
}

double max_diff(const float* a, const float* b, int64_t n) {
  double m = 0;
  for (int64_t i = 0; i < n; ++i) m = std::max(m, double(std::abs(a[i] - b[i])));
  return m;
}

void one_step_agrees(const ResolvedNetwork& net, int64_t batch) {
  if (!fast_path_available()) GTEST_SKIP() << "no fast path on this build or CPU";
  Network<float> ref(net, batch, 3, WeightInit::He, 1, StepPath::Reference);
  Network<float> fast(net, batch, 3, WeightInit::He, 1, StepPath::Fast);
  ASSERT_FALSE(ref.fast_path());
  ASSERT_TRUE(fast.fast_path());
  const int64_t n = ref.num_params(), per = ref.input_elements();
  ASSERT_EQ(n, fast.num_params());
  EXPECT_EQ(max_diff(ref.params(), fast.params(), n), 0.0);  // the same initial weights
  std::vector<int64_t> idx(static_cast<size_t>(batch));
  for (int64_t i = 0; i < batch; ++i) idx[size_t(i)] = i;
  std::vector<int32_t> labels(static_cast<size_t>(batch));
  gather(images().train, idx.data(), batch, ref.input(), labels.data());
  std::copy(ref.input(), ref.input() + per * batch, fast.input());
  const double lr = ref.forward_backward(labels.data(), batch);
  const double lf = fast.forward_backward(labels.data(), batch);
  EXPECT_NEAR(lf, lr, 1e-5 * lr) << "batch " << batch;
  const double g = max_abs(ref.grads(), n), d = max_diff(ref.grads(), fast.grads(), n);
  EXPECT_GT(g, 0.0);
  EXPECT_LE(d, 1e-4 * g) << "batch " << batch << ": gradient difference " << d << " of " << g;
}

TEST(ReferenceStep, OneStepAgreesWithTheFastPathOnTheMlp) {
  for (int64_t batch : {1, 16, 300}) one_step_agrees(resolve_network(mlp_784_256_256_10()), batch);
}

TEST(ReferenceStep, OneStepAgreesWithTheFastPathOnTheSimpleCnn) {
  for (int64_t batch : {1, 16}) one_step_agrees(resolve_network(simple_cnn()), batch);
}

std::vector<double> losses(const ResolvedNetwork& net, StepPath path, int threads, int steps,
                           OptimizerKind kind = OptimizerKind::Nesterov) {
  TrialConfig c = test::synthetic_config(4);
  c.optimizer.kind = kind;
  c.optimizer.weight_decay = 1e-4;
  if (kind == OptimizerKind::AdamW) c.optimizer.learning_rate = 1e-3;
  c.path = path;
  c.threads = threads;
  Trainer t(net, images(), c);
  std::vector<double> out;
  for (int s = 0; s < steps; ++s) out.push_back(t.step());
  return out;
}

void trajectories_agree(const ResolvedNetwork& net) {
  if (!fast_path_available()) GTEST_SKIP() << "no fast path on this build or CPU";
  const std::vector<double> r = losses(net, StepPath::Reference, 1, 30);
  const std::vector<double> f = losses(net, StepPath::Fast, 1, 30);
  for (size_t i = 0; i < r.size(); ++i)
    EXPECT_NEAR(f[i], r[i], (i < 10 ? 1e-3 : 1e-2) * r[i]) << "step " << i;
  EXPECT_LT(r.back(), 0.5 * r.front());  // and it learns
}

TEST(ReferenceStep, ThirtyStepsAgreeWithTheFastPathOnTheMlp) {
  trajectories_agree(resolve_network(mlp_784_256_256_10()));
}

TEST(ReferenceStep, ThirtyStepsAgreeWithTheFastPathOnTheSimpleCnn) {
  trajectories_agree(resolve_network(simple_cnn()));
}

TEST(ReferenceStep, SameBitsOnAnyThreadCount) {
  const ResolvedNetwork net = resolve_network(mlp_784_256_256_10());
  const std::vector<double> one = losses(net, StepPath::Reference, 1, 10);
  EXPECT_EQ(one, losses(net, StepPath::Reference, 1, 10));
  EXPECT_EQ(one, losses(net, StepPath::Reference, 3, 10));
  const std::vector<double> adamw = losses(net, StepPath::Reference, 1, 10, OptimizerKind::AdamW);
  EXPECT_EQ(adamw, losses(net, StepPath::Reference, 2, 10, OptimizerKind::AdamW));
  EXPECT_NE(adamw, one);
}

TEST(ReferenceStep, TheFastPathWhereItCannotRunIsRefused) {
  if (fast_path_available()) GTEST_SKIP() << "the fast path runs here";
  EXPECT_THROW(resolve_step_path(StepPath::Fast), std::invalid_argument);
  EXPECT_EQ(resolve_step_path(StepPath::Auto), StepPath::Reference);
}

}  // namespace
}  // namespace kp
