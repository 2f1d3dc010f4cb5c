// Pins the exact bits of the first training steps' losses of a tiny MLP (batch 1 and 16) and two
// small CNNs (3 x 3, and 5 x 5 over 8 channels: the Winograd path) at fixed seeds. Cached step
// curves are reused while kTrainerNumerics (models/trainer/trainer.h) is unchanged, so a change
// that alters the trainer's floats without raising that number would silently reuse curves of
// other arithmetic: this test fails first and says what to do.
// The bits were taken from the trainer as of kTrainerNumerics 5, built with KP_TRAINER_NATIVE
// (-march=native) on this project's x86-64 AVX-512 machine; another CPU may round differently.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "models/trainer/trainer.h"
#include "tests/models/trainer/synthetic_task.h"
#include "tests/models/trainer/test_networks.h"

namespace kp {
namespace {

constexpr int kSteps = 4;

ResolvedNetwork cnn(int64_t filters, int64_t kernel) {
  auto l = [](LayerKind k, int64_t n = 0, int64_t kern = 1, int64_t stride = 1) {
    return test::layer_spec(k, n, kern, stride, Padding::Same);
  };
  NetworkSpec s;
  s.input = {1, 8, 8};
  s.classes = 4;
  s.layers = {l(LayerKind::Conv2d, 8, 3),        l(LayerKind::Relu), l(LayerKind::Conv2d, filters, kernel),
              l(LayerKind::Relu),                l(LayerKind::MaxPool, 0, 2, 2), l(LayerKind::Flatten),
              l(LayerKind::Dense, 4),            l(LayerKind::SoftmaxCrossEntropy)};
  return resolve_network(s);
}

std::vector<uint64_t> loss_bits(const ResolvedNetwork& net, int64_t batch, uint64_t seed,
                                StepPath path) {
  TrialConfig c = test::synthetic_config(seed);
  c.batch = batch;
  c.path = path;
  Trainer t(net, test::synthetic_data(), c);
  std::vector<uint64_t> out;
  for (int i = 0; i < kSteps; ++i) {
    const double loss = t.step();
    uint64_t b = 0;
    std::memcpy(&b, &loss, sizeof b);
    out.push_back(b);
  }
  return out;
}

double from_bits(uint64_t b) {
  double v = 0;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

struct Pin {
  const char* name;
  ResolvedNetwork net;
  int64_t batch;
  std::vector<uint64_t> bits;
};

void check_pins(const std::vector<Pin>& pins, StepPath path) {
  for (const Pin& p : pins) {
    const std::vector<uint64_t> got = loss_bits(p.net, p.batch, 7, path);
    std::string printed;
    for (uint64_t b : got) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "0x%016llxull /* %.17g */, ", static_cast<unsigned long long>(b), from_bits(b));
      printed += buf;
    }
    // A fresh network is no better than chance (ln 4 = 1.386) and a single sample (b=1) may
    // be far worse; a finite loss that drops by the fourth step.
    EXPECT_GT(from_bits(got[0]), std::log(4.0) - 0.2) << p.name;
    EXPECT_LT(from_bits(got[0]), std::log(4.0) + 2.0) << p.name;
    EXPECT_LT(from_bits(got[kSteps - 1]), from_bits(got[0])) << p.name;
    EXPECT_EQ(got, p.bits) << p.name << ": the trainer's floats changed. If that is intended, raise "
                           << "kTrainerNumerics (models/trainer/trainer.h, with a line saying why) so that cached "
                           << "step curves are measured again, and pin the new bits: " << printed;
  }
}


TEST(TrainerNumerics, PinnedLossBitsOfTheFirstSteps) {
  // The bits are those of the fused AVX-512 kernels (the fast path that measured the shipped
  // curves); the reference sums in another order, so its floats differ by design (pinned below).
  if (!fast_path_available()) GTEST_SKIP() << "pinned bits are of the fast path";
#ifndef NDEBUG
  // An unoptimised build neither contracts a*b+c into FMAs nor vectorises the same way: other bits.
  GTEST_SKIP() << "pinned bits are of the optimised (Release) build that measures the curves";
#endif
  ASSERT_EQ(kTrainerNumerics, 5) << "the version was raised: take new bits (the test prints them) and pin them here";
  // Losses 3.287, 1.941, 1.070, 0.858 | 1.677, 1.394, 1.297, 1.019 | 2.466, 1.245, 1.494, 1.182 |
  // 2.185, 0.889, 1.193, 0.543: the first near or above chance (He init's logits are wide; see
  // GlorotStartsAtChance), then learning.
  const std::vector<Pin> pins = {
      {"mlp b=1", test::tiny_mlp({1, 8, 8}, 32, 4), 1, {0x400a4c908d772330ull, 0x3fff0ec94eb48bd6ull, 0x3ff120c1de59de73ull, 0x3feb747321dda9d8ull}},
      {"mlp b=16", test::tiny_mlp({1, 8, 8}, 32, 4), 16, {0x3ffad40b0998abcdull, 0x3ff64cb5076dfdb4ull, 0x3ff4c1ad5a5730b8ull, 0x3ff04e4d1d95ae8eull}},
      {"cnn 3x3 b=16", cnn(8, 3), 16, {0x4003ba7bc395574bull, 0x3ff3ea66835ffce4ull, 0x3ff7e5f401a8bef7ull, 0x3ff2eac2b709a9c7ull}},
      {"cnn 5x5 b=16", cnn(8, 5), 16, {0x40017bc98999cdf7ull, 0x3fec74e5377aa771ull, 0x3ff3162f1356b70full, 0x3fe16163ff846c5aull}},
  };
  check_pins(pins, StepPath::Fast);
}

// The reference path's bits (same networks and seeds), as of kTrainerNumerics 5 with the
// reference step of 2026-12-07, built with -march=native on the AVX-512 machine (Eigen's products
// are vectorised for the build's CPU, so another build may round differently). The MLP at batch
// 1 matches the fast path's bits; the others differ from the fourth significant digit on.
TEST(TrainerNumerics, PinnedReferenceLossBitsOfTheFirstSteps) {
#ifndef __AVX512F__
  GTEST_SKIP() << "pinned bits are of the AVX-512 build";
#endif
#ifndef NDEBUG
  GTEST_SKIP() << "pinned bits are of the optimised (Release) build that measures the curves";
#endif
  const std::vector<Pin> pins = {
      {"mlp b=1", test::tiny_mlp({1, 8, 8}, 32, 4), 1, {0x400a4c908d772330ull, 0x3fff0ec94eb48bd6ull, 0x3ff120c1de59de73ull, 0x3feb747321dda9d8ull}},
      {"mlp b=16", test::tiny_mlp({1, 8, 8}, 32, 4), 16, {0x3ffad40b0995d7e8ull, 0x3ff64cb5078e0514ull, 0x3ff4c1ad5a0ed21aull, 0x3ff04e4d1dfea3bbull}},
      {"cnn 3x3 b=16", cnn(8, 3), 16, {0x4003ba7bde52b00aull, 0x3ff3ea665496ec47ull, 0x3ff7e5f3c205c2e1ull, 0x3ff2eac272a84ae9ull}},
      {"cnn 5x5 b=16", cnn(8, 5), 16, {0x40017bc9711e1dd2ull, 0x3fec74e4e35bc225ull, 0x3ff3162f6ed306d6ull, 0x3fe161647f9b1330ull}},
  };
  check_pins(pins, StepPath::Reference);
}

// The cross-check of the pinned losses' scale: with Glorot's initialisation (narrow logits) and a
// learning rate too small to learn, the mean loss of a large batch is ln(classes), as it must be
// for a network that has learnt nothing (He init, as pinned above, starts at 1.75 here).
TEST(TrainerNumerics, GlorotStartsAtChance) {
  TrialConfig c = test::synthetic_config(7);
  c.batch = 512, c.init = WeightInit::Glorot, c.optimizer.learning_rate = 1e-9;
  Trainer t(test::tiny_mlp({1, 8, 8}, 32, 4), test::synthetic_data(), c);
  double sum = 0;
  for (int i = 0; i < 4; ++i) sum += t.step();
  EXPECT_NEAR(sum / 4, std::log(4.0), 0.05);  // 1.4066 measured
}

}  // namespace
}  // namespace kp
