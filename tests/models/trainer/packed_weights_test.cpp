// A large dense layer's new weights written by the optimizer's update into the panels its next
// forward reads (Network::fuse_packed_weights, Optimizer::step with DeferredGrad::packed): the
// panels must equal packing the updated weights, bit for bit, and the trained values those of
// the forward packing the weights itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "models/trainer/aligned_vector.h"
#include "models/trainer/gemm.h"
#include "models/trainer/network.h"
#include "models/trainer/optimizer.h"
#include "models/trainer/panel_input_grad.h"
#include "models/trainer/worker_pool.h"
#include "tests/models/trainer/random_floats.h"
#include "tests/models/trainer/test_networks.h"

namespace kp {
namespace {

using trainer_detail::input_grad_from_panels;
using trainer_detail::PackedA;
using trainer_detail::Trans;

AlignedVector<float> random_floats(size_t n, uint32_t seed) {
  return test::random_floats<AlignedVector<float>>(n, seed);
}

// Every panel column of a and b (both m x k) holds the same bits, padding rows included.
bool same_panels(PackedA& a, PackedA& b, int64_t m, int64_t k) {
  for (int64_t r = 0; r < m; r += 32)
    for (int64_t p = 0; p < k; ++p)
      if (std::memcmp(a.column(r, p), b.column(r, p), 32 * sizeof(float)) != 0) return false;
  return true;
}

// The optimizer alone on one 1000 x 1090 block (over 2^20 weights; the last row panel 8 rows
// short, the last depth block of the panels 271 deep, the others 273): at batch 4 the update
// goes column by column (update_gemm.cpp, update_by_columns) and packs the new weights after; at
// batch 32 the GEMM's tiles write them as they update. Both must leave the panels pack() would
// make from the new weights, and the weights themselves those of an update without panels.
TEST(PackedWeights, TheUpdateWritesThePanelsPackWouldMake) {
  if (!trainer_detail::sgemm_available()) GTEST_SKIP() << "AVX-512 kernels not built";
  const int64_t rows = 1000, cols = 1090;
  for (OptimizerKind kind : {OptimizerKind::Sgd, OptimizerKind::Nesterov})
    for (int64_t batch : {4, 32}) {
      SCOPED_TRACE("optimizer " + std::to_string(int(kind)) + ", batch " + std::to_string(batch));
      OptimizerSpec spec;
      spec.kind = kind;
      spec.learning_rate = 0.1;
      spec.momentum = 0.9;
      const AlignedVector<float> dy = random_floats(size_t(rows * batch), 1),
                                 x = random_floats(size_t(cols * batch), 2);
      AlignedVector<float> w = random_floats(size_t(rows * cols), 3), w_plain = w, grad(w.size());
      trainer_detail::GemmWorkspace ws;
      ws.reserve(rows, cols, batch);
      PackedA panels, want;
      panels.reserve(rows, cols);
      want.reserve(rows, cols);
      DeferredGrad d;
      d.rows = rows;
      d.cols = cols;
      d.batch = batch;
      d.dy = dy.data();
      d.x = x.data();
      d.grad = grad.data();
      d.ws = &ws;
      Optimizer with(spec, rows * cols), without(spec, rows * cols);
      for (int64_t step = 0; step < 2; ++step) {
        d.packed = &panels;
        panels.set_shape(rows, cols);
        const double sq = with.step(w.data(), nullptr, step, &d, 1);
        d.packed = nullptr;
        EXPECT_EQ(sq, without.step(w_plain.data(), nullptr, step, &d, 1));
        ASSERT_EQ(0, std::memcmp(w.data(), w_plain.data(), w.size() * sizeof(float)));
        want.pack(Trans::No, rows, cols, w.data(), rows);
        EXPECT_TRUE(same_panels(panels, want, rows, cols)) << "step " << step;
      }
    }
}

// The input gradient from the panels against sgemm over W (the dense layer's own product), bit
// for bit, with and without the ReLU's mask (about half of y <= 0, a fifth exactly 0, some -0
// gradients), on one thread and two: 1000 x 1090 weights (a last row panel of outputs 8 short,
// input blocks of 273 and 271 in tiles of 11 to 12 columns), batches 32, 100 (a last sample
// panel of 4) and 256; and 64 x 100 at batch 40.
TEST(PackedWeights, InputGradientFromThePanelsEqualsTheProducts) {
  if (!trainer_detail::sgemm_available()) GTEST_SKIP() << "AVX-512 kernels not built";
  struct Case {
    int64_t outputs, inputs, batch;
  };
  for (const Case c : {Case{1000, 1090, 32}, Case{1000, 1090, 100}, Case{1000, 1090, 256},
                       Case{64, 100, 40}}) {
    SCOPED_TRACE(std::to_string(c.outputs) + " x " + std::to_string(c.inputs) + ", batch " +
                 std::to_string(c.batch));
    const AlignedVector<float> w = random_floats(size_t(c.outputs * c.inputs), 1);
    AlignedVector<float> y = random_floats(size_t(c.inputs * c.batch), 3);
    for (size_t i = 0; i < y.size(); i += 5) y[i] = 0.0f;  // a ReLU's output: many exact zeros
    AlignedVector<float> dy = random_floats(size_t(c.outputs * c.batch), 2);
    for (size_t i = 0; i < dy.size(); i += 7) dy[i] = -0.0f;
    trainer_detail::GemmWorkspace ws;
    ws.reserve(c.inputs, c.batch, c.outputs);
    AlignedVector<float> want(size_t(c.inputs * c.batch)), masked(want.size());
    trainer_detail::sgemm(Trans::Yes, Trans::No, c.inputs, c.batch, c.outputs, w.data(),
                          c.outputs, dy.data(), c.outputs, want.data(), c.inputs, false, ws);
    for (size_t i = 0; i < want.size(); ++i) masked[i] = y[i] > 0 ? want[i] : 0.0f;
    PackedA panels, dyt;
    panels.reserve(c.outputs, c.inputs);
    panels.pack(Trans::No, c.outputs, c.inputs, w.data(), c.outputs);
    dyt.reserve(c.batch, c.outputs);
    dyt.pack(Trans::Yes, c.batch, c.outputs, dy.data(), c.outputs);
    for (int threads : {1, 2}) {
      trainer_detail::WorkerPool pool(threads);
      AlignedVector<float> got(want.size(), 7.0f), got_masked(want.size(), 7.0f);
      input_grad_from_panels(panels, dyt, nullptr, got.data(), c.inputs, &pool);
      input_grad_from_panels(panels, dyt, y.data(), got_masked.data(), c.inputs, &pool);
      EXPECT_EQ(0, std::memcmp(got.data(), want.data(), want.size() * sizeof(float)));
      EXPECT_EQ(0, std::memcmp(got_masked.data(), masked.data(), want.size() * sizeof(float)));
    }
  }
}

// flatten -> dense(1024) -> ReLU -> dense(1024) -> ReLU -> dense(4): the middle layer's 2^20
// weights get panels at batch 32, on one thread and on two (the forward split in chunks of
// columns sharing them).
ResolvedNetwork wide_net() {
  using test::layer_spec;
  NetworkSpec s;
  s.input = {1, 8, 8};
  s.classes = 4;
  s.layers = {layer_spec(LayerKind::Flatten), layer_spec(LayerKind::Dense, 1024),
              layer_spec(LayerKind::Relu),    layer_spec(LayerKind::Dense, 1024),
              layer_spec(LayerKind::Relu),    layer_spec(LayerKind::Dense, 4),
              layer_spec(LayerKind::SoftmaxCrossEntropy)};
  return resolve_network(s);
}

// Two copies trained on the same samples, one with panels, one without: the same losses and
// parameters after every step, and the same squared norms (on two threads up to the order of
// their sum). Then the middle layer's weights are zeroed
// behind the armed copy's back: its evaluation still gives the updated weights' loss, so its
// forward read the panels; after params() (which disarms) it gives the zeroed weights' loss.
void expect_panels_change_nothing(int threads) {
  const ResolvedNetwork net = wide_net();
  const int64_t batch = 32, steps = 4;
  Network<float> fused(net, batch, 5, WeightInit::He, threads), apart(net, batch, 5);
  fused.set_defer_weight_grads(true);
  apart.set_defer_weight_grads(true);
  OptimizerSpec spec;
  spec.kind = OptimizerKind::Nesterov;
  spec.learning_rate = 0.01;
  spec.momentum = 0.9;
  Optimizer opt_fused(spec, fused.num_params(), fused.pool()), opt_apart(spec, apart.num_params());
  const int64_t in = fused.input_elements();
  const AlignedVector<float> xs = random_floats(size_t(in * batch * (steps + 1)), 7);
  std::vector<int32_t> labels(static_cast<size_t>(batch));
  for (int64_t i = 0; i < batch; ++i) labels[size_t(i)] = int32_t(i % 4);
  float* const w = fused.params();
  for (int64_t t = 0; t < steps; ++t) {
    SCOPED_TRACE("step " + std::to_string(t));
    std::copy(xs.begin() + t * in * batch, xs.begin() + (t + 1) * in * batch, fused.input());
    std::copy(xs.begin() + t * in * batch, xs.begin() + (t + 1) * in * batch, apart.input());
    ASSERT_EQ(fused.forward_backward(labels.data(), batch),
              apart.forward_backward(labels.data(), batch));
    ASSERT_TRUE(fused.fuse_packed_weights());
    const auto& df = fused.deferred_weight_grads();
    const auto& da = apart.deferred_weight_grads();
    const double sq = opt_fused.step(w, fused.grads(), t, df.data(), df.size());
    const double want = opt_apart.step(apart.params(), apart.grads(), t, da.data(), da.size());
    if (threads == 1)
      ASSERT_EQ(sq, want);
    else  // summed per thread, then over the threads
      ASSERT_NEAR(sq, want, 1e-5 * want);
    ASSERT_EQ(0, std::memcmp(w, apart.params(), size_t(fused.num_params()) * sizeof(float)));
  }
  const int64_t middle = 64 * 1024 + 1024, middle_weights = 1024 * 1024;  // after dense(1024)
  std::fill(w + middle, w + middle + middle_weights, 0.0f);
  std::copy(xs.end() - in * batch, xs.end(), fused.input());
  std::copy(xs.end() - in * batch, xs.end(), apart.input());
  int64_t errors = 0;
  const double updated = apart.evaluate(labels.data(), batch, &errors);
  EXPECT_EQ(fused.evaluate(labels.data(), batch, &errors), updated);
  fused.params();
  float* const wa = apart.params();
  std::fill(wa + middle, wa + middle + middle_weights, 0.0f);
  const double zeroed = apart.evaluate(labels.data(), batch, &errors);
  EXPECT_NE(zeroed, updated);
  EXPECT_EQ(fused.evaluate(labels.data(), batch, &errors), zeroed);
}

TEST(PackedWeights, TrainingWithPanelsEqualsTrainingWithout) {
  if (!fast_path_available()) GTEST_SKIP() << "a test of the fused fast path";
  if (!trainer_detail::sgemm_available()) GTEST_SKIP() << "AVX-512 kernels not built";
  for (int threads : {1, 2}) {
    SCOPED_TRACE(std::to_string(threads) + " thread(s)");
    expect_panels_change_nothing(threads);
  }
}

// Only layers of >= 2^20 weights, and only at batches whose forward packs the weights.
TEST(PackedWeights, OnlyLargeLayersAtBatchesThatPack) {
  if (!fast_path_available()) GTEST_SKIP() << "a test of the fused fast path";
  Network<float> wide(wide_net(), 32, 5), small(test::tiny_mlp({1, 8, 8}, 64, 4), 32, 5);
  wide.set_defer_weight_grads(true);
  small.set_defer_weight_grads(true);
  const int32_t labels[32] = {};
  wide.forward_backward(labels, 32);
  small.forward_backward(labels, 32);
  EXPECT_EQ(wide.fuse_packed_weights(), trainer_detail::sgemm_available());
  EXPECT_FALSE(small.fuse_packed_weights());
  wide.forward_backward(labels, 16);  // read in place at 16 columns (gemm.cpp)
  EXPECT_FALSE(wide.fuse_packed_weights());
}

}  // namespace
}  // namespace kp
