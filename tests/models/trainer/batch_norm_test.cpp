// Batch norm against its closed form (Ioffe & Szegedy 2015, Algorithm 1; PyTorch's running
// statistics), through the public Network: a network made of the layer alone feeds its outputs
// to the softmax cross-entropy, whose value the test recomputes from the hand-normalised inputs.
// The derivatives are checked numerically in gradient_check_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "models/trainer/network.h"
#include "models/trainer/trainer.h"
#include "tests/models/trainer/same_curve.h"
#include "tests/models/trainer/synthetic_task.h"
#include "tests/models/trainer/test_networks.h"

namespace kp {
namespace {

LayerSpec layer(LayerKind kind, int64_t n = 0, int64_t kernel = 1) {
  return test::layer_spec(kind, n, kernel, 1, Padding::Same);
}

ResolvedNetwork bn_alone() {  // 3 features -> batch norm -> softmax over 3 classes
  NetworkSpec s;
  s.input = {3, 1, 1};
  s.classes = 3;
  s.layers = {layer(LayerKind::BatchNorm), layer(LayerKind::SoftmaxCrossEntropy)};
  return resolve_network(s);
}

double cross_entropy(const std::vector<double>& z, int label) {
  double sum = 0;
  for (double v : z) sum += std::exp(v);
  return std::log(sum) - z[size_t(label)];
}

TEST(BatchNorm, TrainingUsesBatchStatisticsEvaluationTheRunningOnes) {
  Network<double> nn(bn_alone(), 4, 1);
  for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(nn.params()[i], 1.0);  // gamma
  for (int64_t i = 3; i < 6; ++i) EXPECT_EQ(nn.params()[i], 0.0);  // beta
  const double x[4][3] = {{1, -2, 0.5}, {3, 0, 0.5}, {-1, 4, 2}, {5, 2, -1}};
  const int32_t labels[4] = {0, 2, 1, 0};
  for (int n = 0; n < 4; ++n)
    for (int c = 0; c < 3; ++c) nn.input()[n * 3 + c] = x[n][c];
  double mean[3], var[3];
  for (int c = 0; c < 3; ++c) {
    mean[c] = (x[0][c] + x[1][c] + x[2][c] + x[3][c]) / 4;
    var[c] = 0;
    for (int n = 0; n < 4; ++n) var[c] += (x[n][c] - mean[c]) * (x[n][c] - mean[c]) / 4;
  }
  double expected = 0;
  for (int n = 0; n < 4; ++n) {
    std::vector<double> z(3);
    for (int c = 0; c < 3; ++c) z[size_t(c)] = (x[n][c] - mean[c]) / std::sqrt(var[c] + 1e-5);
    expected += cross_entropy(z, labels[n]) / 4;
  }
  EXPECT_NEAR(nn.forward_backward(labels, 4), expected, 1e-12);
  // Running statistics after one step: 0.9 * (0, 1) + 0.1 * (mean, unbiased variance).
  const double probe[3] = {2, -1, 0.25};
  for (int c = 0; c < 3; ++c) nn.input()[c] = probe[c];
  std::vector<double> z(3);
  for (int c = 0; c < 3; ++c) {
    const double rm = 0.1 * mean[c], rv = 0.9 + 0.1 * var[c] * 4.0 / 3.0;
    z[size_t(c)] = (probe[c] - rm) / std::sqrt(rv + 1e-5);
  }
  int64_t errors = 0;
  const int32_t label = 1;
  EXPECT_NEAR(nn.evaluate(&label, 1, &errors), cross_entropy(z, 1), 1e-12);
  const bool right = z[1] > z[0] && z[1] > z[2];
  EXPECT_EQ(errors, right ? 0 : 1);
}

TEST(BatchNorm, OneValuePerChannelCannotTrainButCanBeEvaluated) {
  Network<float> nn(bn_alone(), 4, 1);
  const int32_t label = 0;
  EXPECT_THROW(nn.forward_backward(&label, 1), std::invalid_argument);
  int64_t errors = 0;
  EXPECT_TRUE(std::isfinite(nn.evaluate(&label, 1, &errors)));
}

// Conv -> batch norm -> ReLU -> pool on the synthetic task: learns it, and a seed's losses are
// bit-identical from run to run.
TEST(BatchNorm, ConvNetWithBatchNormLearnsDeterministically) {
  NetworkSpec s;
  s.input = {1, 8, 8};
  s.classes = 4;
  LayerSpec pool = layer(LayerKind::MaxPool, 0, 2);
  pool.stride = 2;
  s.layers = {layer(LayerKind::Conv2d, 4, 3), layer(LayerKind::BatchNorm), layer(LayerKind::Relu),
              pool, layer(LayerKind::Flatten), layer(LayerKind::Dense, 16),
              layer(LayerKind::BatchNorm), layer(LayerKind::Relu), layer(LayerKind::Dense, 4),
              layer(LayerKind::SoftmaxCrossEntropy)};
  const ResolvedNetwork net = resolve_network(s);
  const TrialConfig c = test::synthetic_config(3);
  const TrialResult a = train_trial(net, test::synthetic_data(), c);
  const TrialResult b = train_trial(net, test::synthetic_data(), c);
  ASSERT_TRUE(a.steps_to_target.has_value());
  EXPECT_LE(a.curve.back().validation_error, 0.02);
  test::expect_same_curve(a, b);
}

}  // namespace
}  // namespace kp
