// Numeric-vs-analytic gradient checks (tiny-dnn's habit), run in double precision: with central
// differences of step h = 1e-6 on a loss of O(1), the truncation error is O(h^2 f''') ~ 1e-12 and
// the rounding error O(1e-16 / h) ~ 1e-10, so |numeric - analytic| <= 1e-8 + 1e-5 |analytic| holds
// for a correct derivative with a wide margin, and a wrong one (an off-by-one window, a missing
// term) is off by O(|gradient|).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "models/trainer/network.h"
#include "models/trainer/zoo.h"
#include "tests/models/trainer/test_networks.h"

namespace kp {
namespace {

LayerSpec make(LayerKind kind, int64_t n = 0, int64_t kernel = 1, int64_t stride = 1,
               Padding pad = Padding::Valid) {
  return test::layer_spec(kind, n, kernel, stride, pad);
}

void expect_close(double numeric, double analytic, const char* what, int64_t i) {
  EXPECT_LE(std::abs(numeric - analytic), 1e-8 + 1e-5 * std::abs(analytic))
      << what << " " << i << ": numeric " << numeric << ", analytic " << analytic;
}

// Checks d loss / d params (every parameter, or every `stride`-th) and d loss / d input.
void check_gradients_on(const NetworkSpec& spec, int64_t batch, int64_t param_stride,
                        int64_t input_stride, StepPath path) {
  SCOPED_TRACE(step_path_name(path));
  const ResolvedNetwork net = resolve_network(spec);
  Network<double> nn(net, batch, 7, WeightInit::He, 1, path);
  nn.set_compute_input_grad(true);
  std::mt19937_64 rng(3);
  std::normal_distribution<double> nd(0.0, 1.0);
  const int64_t nx = nn.input_elements() * batch;
  for (int64_t i = 0; i < nx; ++i) nn.input()[i] = nd(rng);
  // Small random biases too, so bias gradients do not sit at a symmetric point.
  for (int64_t i = 0; i < nn.num_params(); ++i) nn.params()[i] += 0.05 * nd(rng);
  std::vector<int32_t> labels(static_cast<size_t>(batch));
  for (auto& y : labels) y = static_cast<int32_t>(rng() % static_cast<uint64_t>(nn.classes()));

  nn.forward_backward(labels.data(), batch);
  const std::vector<double> g(nn.grads(), nn.grads() + nn.num_params());
  const std::vector<double> gx(nn.input_grad(), nn.input_grad() + nx);
  const double eps = 1e-6;
  auto numeric = [&](double* v) {
    const double keep = *v;
    *v = keep + eps;
    const double lp = nn.forward_backward(labels.data(), batch);
    *v = keep - eps;
    const double lm = nn.forward_backward(labels.data(), batch);
    *v = keep;
    return (lp - lm) / (2 * eps);
  };
  ASSERT_GT(nn.num_params(), 0);
  for (int64_t i = 0; i < nn.num_params(); i += param_stride)
    expect_close(numeric(nn.params() + i), g[static_cast<size_t>(i)], "param", i);
  for (int64_t i = 0; i < nx; i += input_stride)
    expect_close(numeric(nn.input() + i), gx[static_cast<size_t>(i)], "input", i);
}

// On the reference layers and on the fused ones (where the fast path runs; in double they take
// their portable loops, the layers' own code apart from the AVX-512 kernels).
void check_gradients(const NetworkSpec& spec, int64_t batch, int64_t param_stride = 1,
                     int64_t input_stride = 1) {
  check_gradients_on(spec, batch, param_stride, input_stride, StepPath::Reference);
  if (fast_path_available())
    check_gradients_on(spec, batch, param_stride, input_stride, StepPath::Fast);
}

NetworkSpec spec(Shape in, std::vector<LayerSpec> layers) {
  NetworkSpec s;
  s.input = in;
  s.classes = 3;
  s.layers = std::move(layers);
  s.layers.push_back(make(LayerKind::SoftmaxCrossEntropy));
  return s;
}

TEST(GradientCheck, Dense) { check_gradients(spec({5, 1, 1}, {make(LayerKind::Dense, 3)}), 4); }

TEST(GradientCheck, DenseWithoutBias) {
  LayerSpec d = make(LayerKind::Dense, 3);
  d.bias = false;
  check_gradients(spec({5, 1, 1}, {d}), 3);
}

TEST(GradientCheck, Relu) {
  check_gradients(spec({4, 1, 1}, {make(LayerKind::Dense, 6), make(LayerKind::Relu),
                                   make(LayerKind::Dense, 3)}), 5);
}

TEST(GradientCheck, Conv2dSameStride1) {
  check_gradients(spec({2, 5, 5}, {make(LayerKind::Conv2d, 3, 3, 1, Padding::Same),
                                   make(LayerKind::Flatten), make(LayerKind::Dense, 3)}), 2);
}

TEST(GradientCheck, Conv2dValidStride2) {
  check_gradients(spec({2, 7, 7}, {make(LayerKind::Conv2d, 3, 3, 2, Padding::Valid),
                                   make(LayerKind::Flatten), make(LayerKind::Dense, 3)}), 2);
}

TEST(GradientCheck, Conv2dSameStride2AsymmetricPadding) {
  check_gradients(spec({1, 6, 6}, {make(LayerKind::Conv2d, 2, 4, 2, Padding::Same),
                                   make(LayerKind::Flatten), make(LayerKind::Dense, 3)}), 2);
}

TEST(GradientCheck, MaxPoolAndFlatten) {
  check_gradients(spec({2, 4, 5}, {make(LayerKind::MaxPool, 0, 2, 2, Padding::Same),
                                   make(LayerKind::Flatten), make(LayerKind::Dense, 3)}), 2);
}

TEST(GradientCheck, MaxPoolOverlappingValid) {
  check_gradients(spec({2, 5, 5}, {make(LayerKind::MaxPool, 0, 3, 2, Padding::Valid),
                                   make(LayerKind::Flatten), make(LayerKind::Dense, 3)}), 2);
}

// Batch norm in training mode: the batch's statistics depend on every input, so the input
// gradient checks the full derivative through the mean and the variance, and gamma and beta
// (started at 1 and 0, perturbed by the check's noise) through the parameter gradient.
TEST(GradientCheck, BatchNormAfterDense) {
  check_gradients(spec({5, 1, 1}, {make(LayerKind::Dense, 4), make(LayerKind::BatchNorm),
                                   make(LayerKind::Relu), make(LayerKind::Dense, 3)}), 4);
}

TEST(GradientCheck, BatchNormAfterConvOverBatchAndPixels) {
  check_gradients(spec({2, 4, 4}, {make(LayerKind::Conv2d, 3, 3, 1, Padding::Same),
                                   make(LayerKind::BatchNorm), make(LayerKind::Flatten),
                                   make(LayerKind::Dense, 3)}), 3);
}

TEST(GradientCheck, SmallCnnWholeNetwork) {
  check_gradients(spec({1, 8, 8}, {make(LayerKind::Conv2d, 4, 3, 1, Padding::Same),
                                   make(LayerKind::Relu), make(LayerKind::MaxPool, 0, 2, 2),
                                   make(LayerKind::Conv2d, 4, 3, 1, Padding::Same),
                                   make(LayerKind::Relu), make(LayerKind::MaxPool, 0, 2, 2),
                                   make(LayerKind::Flatten), make(LayerKind::Dense, 8),
                                   make(LayerKind::Relu), make(LayerKind::Dense, 3)}), 3);
}

TEST(GradientCheck, ReferenceMlpSampled) {
  // The real 784-256-256-10 MLP; every 97th parameter keeps the test short.
  NetworkSpec s = mlp_784_256_256_10();
  const ResolvedNetwork net = resolve_network(s);
  Network<double> nn(net, 2, 1);
  ASSERT_EQ(nn.num_params(), 784 * 256 + 256 + 256 * 256 + 256 + 256 * 10 + 10);
  check_gradients(s, 2, 997, 13);
}

TEST(Network, RejectsMissingLoss) {
  NetworkSpec s;
  s.input = {4, 1, 1};
  s.classes = 3;
  s.layers = {make(LayerKind::Dense, 3)};
  EXPECT_THROW(Network<float>(resolve_network(s), 1, 1), std::invalid_argument);
}

// Below the first layer with parameters no input gradient is formed (the MLP's first dense
// layer follows a flatten) unless asked for: the input gradient buffer stays as allocated (zero)
// and every parameter gradient is bit-identical to the network that forms it, at batch 1 (the
// matrix-vector path) and 8 (the products).
TEST(Network, NoInputGradientBelowTheFirstTrainableLayerUnlessAsked) {
  const ResolvedNetwork net = resolve_network(mlp_784_256_256_10());
  for (int64_t batch : {1, 8}) {
    Network<float> lean(net, batch, 3), full(net, batch, 3);
    full.set_compute_input_grad(true);
    std::mt19937 rng(4);
    std::uniform_real_distribution<float> u(0, 1);
    for (int64_t i = 0; i < lean.input_elements() * batch; ++i)
      lean.input()[i] = full.input()[i] = u(rng);
    std::vector<int32_t> labels;
    for (int64_t n = 0; n < batch; ++n) labels.push_back(int32_t(n % 10));
    EXPECT_EQ(lean.forward_backward(labels.data(), batch),
              full.forward_backward(labels.data(), batch));
    for (int64_t i = 0; i < lean.num_params(); ++i)
      ASSERT_EQ(lean.grads()[i], full.grads()[i]) << "batch " << batch << ", parameter " << i;
    int64_t nonzero_lean = 0, nonzero_full = 0;
    for (int64_t i = 0; i < lean.input_elements() * batch; ++i) {
      nonzero_lean += lean.input_grad()[i] != 0.0f;
      nonzero_full += full.input_grad()[i] != 0.0f;
    }
    EXPECT_EQ(nonzero_lean, 0) << "batch " << batch;
    EXPECT_GT(nonzero_full, lean.input_elements() * batch / 2) << "batch " << batch;
  }
}

TEST(Network, HeInitialisationVariance) {
  NetworkSpec s = spec({400, 1, 1}, {make(LayerKind::Dense, 500)});
  s.classes = 500;
  Network<float> nn(resolve_network(s), 1, 5);
  double sq = 0;
  for (int64_t i = 0; i < 400 * 500; ++i) sq += double(nn.params()[i]) * nn.params()[i];
  EXPECT_NEAR(sq / (400 * 500), 2.0 / 400, 0.02 * 2.0 / 400);  // 200k draws: ~0.3% std error
  for (int64_t i = 400 * 500; i < nn.num_params(); ++i) EXPECT_EQ(nn.params()[i], 0.0f);
}

// Glorot & Bengio 2010: U(-a, a) with a = sqrt(6 / (fan_in + fan_out)) has variance
// a^2 / 3 = 2 / (fan_in + fan_out) and never exceeds a.
TEST(Network, GlorotInitialisationVarianceAndBound) {
  NetworkSpec s = spec({400, 1, 1}, {make(LayerKind::Dense, 500)});
  s.classes = 500;
  Network<float> nn(resolve_network(s), 1, 5, WeightInit::Glorot);
  const double a = std::sqrt(6.0 / 900.0);
  double sq = 0, max_abs = 0;
  for (int64_t i = 0; i < 400 * 500; ++i) {
    sq += double(nn.params()[i]) * nn.params()[i];
    max_abs = std::max(max_abs, std::abs(double(nn.params()[i])));
  }
  EXPECT_NEAR(sq / (400 * 500), 2.0 / 900, 0.02 * 2.0 / 900);
  EXPECT_LE(max_abs, a);
  EXPECT_GT(max_abs, 0.99 * a);  // the range is used up to its end
}

}  // namespace
}  // namespace kp
