// The noise probe (models/step_curve/measure/noise_probe.h): at fixed parameters its averaged
// two-batch estimates converge to |G|^2 and tr(Sigma) computed directly from every per-example
// gradient of the training split; along a run it probes every `every` steps and leaves the run
// unchanged.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "models/step_curve/measure/noise_probe.h"
#include "tests/models/trainer/same_curve.h"
#include "tests/models/trainer/test_networks.h"

namespace kp {
namespace {

ResolvedNetwork tiny() { return test::tiny_mlp({1, 3, 3}, 6, 3); }

TEST(NoiseProbe, ConvergesToThePerExampleTruthAtFixedParameters) {
  const ResolvedNetwork net = tiny();
  const Dataset data = make_synthetic_dataset({1, 3, 3}, 3, 256, 32, 11);
  TrialConfig c;
  c.batch = 4;
  c.optimizer.learning_rate = 0.05;
  Trainer trainer(net, data, c);
  for (int i = 0; i < 20; ++i) trainer.step();  // somewhere off the initialisation

  // Truth: per-example gradients at these parameters (batch 1, nothing deferred).
  Network<float> one(net, 1, 1);
  const int64_t np = one.num_params();
  std::copy(trainer.network().params(), trainer.network().params() + np, one.params());
  std::vector<double> mean(static_cast<size_t>(np), 0.0), sq(static_cast<size_t>(data.train.n), 0.0);
  std::vector<std::vector<double>> g(static_cast<size_t>(data.train.n));
  for (int64_t i = 0; i < data.train.n; ++i) {
    int32_t label = 0;
    gather(data.train, &i, 1, one.input(), &label);
    one.forward_backward(&label, 1);
    g[static_cast<size_t>(i)].assign(one.grads(), one.grads() + np);
    for (int64_t k = 0; k < np; ++k) mean[static_cast<size_t>(k)] += g[static_cast<size_t>(i)][static_cast<size_t>(k)] / double(data.train.n);
  }
  double g2 = 0, trace = 0;
  for (double m : mean) g2 += m * m;
  for (const auto& gi : g)
    for (int64_t k = 0; k < np; ++k) {
      const double d = gi[static_cast<size_t>(k)] - mean[static_cast<size_t>(k)];
      trace += d * d / double(data.train.n);
    }

  NoiseProbe probe(net, data, 8, 1, 5);
  for (int i = 1; i <= 4000; ++i) probe.on_step(i, 0.0, trainer);
  const NoiseScaleResult r = probe.result();
  EXPECT_EQ(r.probes, 4000);
  EXPECT_EQ(r.batch, 8);
  EXPECT_NEAR(r.trace_sigma / trace, 1.0, 0.05) << r.trace_sigma << " vs " << trace;
  EXPECT_NEAR(r.g2 / g2, 1.0, 0.15) << r.g2 << " vs " << g2;
  EXPECT_NEAR(r.b_simple() / (trace / g2), 1.0, 0.2);
}

TEST(NoiseProbe, ProbesEveryKStepsAndLeavesTheRunUnchanged) {
  const ResolvedNetwork net = tiny();
  const Dataset data = make_synthetic_dataset({1, 3, 3}, 3, 256, 64, 3);
  TrialConfig c;
  c.batch = 8;
  c.optimizer.learning_rate = 0.1;
  c.max_steps = 95;
  c.eval_every = 5;
  c.target_error = -1;  // run the whole budget
  NoiseProbe probe(net, data, 8, 10, 1);
  const TrialResult with = train_trial(net, data, c, 0, &probe);
  const TrialResult without = train_trial(net, data, c);
  EXPECT_EQ(probe.result().probes, 9);  // steps 10, 20, ..., 90
  EXPECT_GT(probe.result().b_simple(), 0);
  test::expect_same_curve(with, without);
}

}  // namespace
}  // namespace kp
