// Numeric-vs-analytic gradient checks of the text layers (text_layers.h) in double, as in
// gradient_check_test.cpp: the loss L = sum r .* y for a fixed random r, central differences of
// h = 1e-6, |numeric - analytic| <= 1e-8 + 1e-5 |analytic|. Each numeric forward runs on a
// fresh layer bound to the perturbed parameters, so a dropout layer draws its first mask again.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <random>
#include <stdexcept>
#include <vector>

#include "models/trainer/reference_layers.h"
#include "models/trainer/text_layers.h"

namespace kp::trainer_detail {
namespace {

using Factory = std::function<std::unique_ptr<Layer<double>>()>;

struct Check {
  int64_t in = 0, out = 0, cols = 0;
  bool input_grad = true;  // false for token ids
};

void expect_close(double numeric, double analytic, const char* what, int64_t i) {
  EXPECT_LE(std::abs(numeric - analytic), 1e-8 + 1e-5 * std::abs(analytic))
      << what << " " << i << ": numeric " << numeric << ", analytic " << analytic;
}

void gradient_check(const Factory& make, const Check& c, std::vector<double> x = {}) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> nd(0.0, 1.0);
  if (x.empty())
    for (int64_t i = 0; i < c.in * c.cols; ++i) x.push_back(nd(rng));
  std::unique_ptr<Layer<double>> layer = make();
  const int64_t n = layer->param_count();
  std::vector<double> w(static_cast<size_t>(n)), dw(w.size()), scratch(w.size());
  layer->bind(w.data(), dw.data());
  layer->init(rng, WeightInit::Glorot);
  for (double& v : w) v += 0.1 * nd(rng);  // off the symmetric start (gamma 1, biases 0)
  std::vector<double> r(static_cast<size_t>(c.out * c.cols)), y(r.size());
  for (double& v : r) v = nd(rng);
  std::vector<double> dx(x.size(), 7.0);
  layer->forward(x.data(), y.data(), c.cols);
  layer->backward(x.data(), y.data(), r.data(), c.input_grad ? dx.data() : nullptr, c.cols);
  auto loss = [&] {
    std::unique_ptr<Layer<double>> fresh = make();
    fresh->bind(w.data(), scratch.data());
    std::vector<double> yy(r.size());
    fresh->forward(x.data(), yy.data(), c.cols);
    double s = 0;
    for (size_t i = 0; i < r.size(); ++i) s += r[i] * yy[i];
    return s;
  };
  const double h = 1e-6;
  auto numeric = [&](double* v) {
    const double keep = *v;
    *v = keep + h;
    const double lp = loss();
    *v = keep - h;
    const double lm = loss();
    *v = keep;
    return (lp - lm) / (2 * h);
  };
  const int64_t stride = std::max<int64_t>(1, n / 300);  // at most ~300 parameters each
  for (int64_t i = 0; i < n; i += stride) expect_close(numeric(&w[size_t(i)]), dw[size_t(i)], "param", i);
  if (!c.input_grad) return;
  for (size_t i = 0; i < x.size(); ++i) expect_close(numeric(&x[i]), dx[i], "input", int64_t(i));
}

TEST(TextLayers, EmbeddingGradient) {
  // Ids repeat (3 twice, 0 twice) so the table's gradient sums over tokens; 2 sequences of 3.
  gradient_check([] { return make_embedding<double>(5, 4, 3); }, {1, 4, 6, false},
                 {3, 0, 3, 1, 4, 0});
}

TEST(TextLayers, EmbeddingRejectsAnIdOutsideTheVocabulary) {
  auto e = make_embedding<double>(5, 2, 1);
  std::vector<double> w(static_cast<size_t>(e->param_count())), y(2);
  e->bind(w.data(), w.data());
  const double bad = 5;
  EXPECT_THROW(e->forward(&bad, y.data(), 1), std::out_of_range);
}

TEST(TextLayers, LayerNormGradient) {
  gradient_check([] { return make_layer_norm<double>(6, 4); }, {6, 6, 4});
}

TEST(TextLayers, GeluGradientAndValues) {
  gradient_check([] { return make_gelu<double>(5); }, {5, 5, 3});
  auto g = make_gelu<double>(1);
  const double x[3] = {-1, 0, 2};
  double y[3];
  g->forward(x, y, 3);
  EXPECT_NEAR(y[0], -0.15865525393145707, 1e-15);  // -1 * Phi(-1)
  EXPECT_EQ(y[1], 0.0);
  EXPECT_NEAR(y[2], 1.9544997361036416, 1e-15);  // 2 * Phi(2)
}

TEST(TextLayers, CausalAttentionGradient) {
  // d 6, 2 heads of 3, 2 sequences of 4 tokens.
  gradient_check([] { return make_causal_attention<double>(6, 2, 4, 8); }, {6, 6, 8});
}

TEST(TextLayers, CausalAttentionSeesNoFutureToken) {
  auto a = make_causal_attention<double>(4, 2, 3, 3);
  std::vector<double> w(static_cast<size_t>(a->param_count())), dw(w.size());
  a->bind(w.data(), dw.data());
  std::mt19937_64 rng(1);
  a->init(rng, WeightInit::Glorot);
  std::vector<double> x(12), y1(12), y2(12);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(double(i));
  a->forward(x.data(), y1.data(), 3);
  for (size_t i = 8; i < 12; ++i) x[i] += 1.0;  // change the last token only
  a->forward(x.data(), y2.data(), 3);
  // Tokens 0, 1 unchanged up to rounding (the softmax's shift may see the masked scores); a leak of
  // the changed token would move them by ~1e-1.
  for (size_t i = 0; i < 8; ++i) EXPECT_NEAR(y1[i], y2[i], 1e-12) << i;
  EXPECT_NE(y1[8], y2[8]);
  EXPECT_THROW(a->forward(x.data(), y2.data(), 2), std::invalid_argument);  // not whole sequences
  EXPECT_THROW(make_causal_attention<double>(6, 4, 3, 3), std::invalid_argument);  // 4 ∤ 6
}

TEST(TextLayers, DropoutGradientAndMask) {
  gradient_check([] { return make_dropout<double>(8, 0.25, 9); }, {8, 8, 5});
  auto d = make_dropout<double>(1000, 0.25, 9);
  std::vector<double> x(1000, 1.0), y1(1000), y2(1000);
  d->forward(x.data(), y1.data(), 1);
  d->forward(x.data(), y2.data(), 1);
  int dropped = 0;
  for (double v : y1) {
    EXPECT_TRUE(v == 0.0 || v == 1.0 / 0.75);
    dropped += v == 0.0;
  }
  EXPECT_NEAR(dropped, 250, 45);  // binomial(1000, 0.25): sd 13.7
  EXPECT_NE(y1, y2);              // a new mask each training forward
  auto same = make_dropout<double>(1000, 0.25, 9);
  std::vector<double> y3(1000);
  same->forward(x.data(), y3.data(), 1);
  EXPECT_EQ(y1, y3);  // the same seed, the same first mask
  same->set_training(false);
  same->forward(x.data(), y3.data(), 1);
  EXPECT_EQ(y3, x);  // evaluation passes through
}

TEST(TextLayers, ResidualBlockGradient) {
  // x + FFN(LN(x)) with d 4, hidden 6: LN, dense 4->6, GELU, dense 6->4.
  gradient_check(
      [] {
        std::vector<SizedLayer<double>> f;
        f.emplace_back(make_layer_norm<double>(4, 3), 4);
        f.emplace_back(make_reference_dense<double>(4, 6, true), 6);
        f.emplace_back(make_gelu<double>(6), 6);
        f.emplace_back(make_reference_dense<double>(6, 4, true), 4);
        return make_residual<double>(4, std::move(f), 3);
      },
      {4, 4, 3});
}

}  // namespace
}  // namespace kp::trainer_detail
