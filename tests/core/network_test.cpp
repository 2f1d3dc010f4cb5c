// Shape inference and lowering on hand-computed cases.
#include <gtest/gtest.h>

#include "core/lowering.h"
#include "core/network_spec.h"

namespace kp {
namespace {

LayerSpec conv(int64_t filters, int64_t kernel, int64_t stride, Padding p) {
  LayerSpec l;
  l.kind = LayerKind::Conv2d;
  l.name = "c";
  l.filters = filters;
  l.kernel = kernel;
  l.stride = stride;
  l.padding = p;
  return l;
}

}  // namespace

TEST(Network, ConvShapesSameAndValid) {
  NetworkSpec n;
  n.input = {1, 28, 28};
  n.layers = {conv(32, 5, 1, Padding::Same), conv(8, 5, 1, Padding::Valid), conv(4, 3, 2, Padding::Same)};
  const ResolvedNetwork r = resolve_network(n);
  EXPECT_EQ(r.layers[0].out, (Shape{32, 28, 28}));
  EXPECT_EQ(r.layers[1].out, (Shape{8, 24, 24}));
  EXPECT_EQ(r.layers[2].out, (Shape{4, 12, 12}));
  EXPECT_EQ(r.params, (25 * 32 + 32) + (25 * 32 * 8 + 8) + (9 * 8 * 4 + 4));
}

TEST(Network, DenseAfterConvNeedsFlatten) {
  NetworkSpec n;
  n.input = {1, 4, 4};
  LayerSpec d;
  d.kind = LayerKind::Dense;
  d.name = "fc";
  d.units = 3;
  n.layers = {d};
  EXPECT_THROW(resolve_network(n), std::invalid_argument);
}

// Simple CNN conv1 at batch 8: forward M = 8*28*28, N = 32, K = 25; the first layer has no
// backward-data GEMM; backward-weight M = 25, N = 32, K = 8*784.
TEST(Lowering, ConvGemmsFollowScaleSimMapping) {
  NetworkSpec n;
  n.input = {1, 28, 28};
  n.layers = {conv(32, 5, 1, Padding::Same), conv(64, 5, 1, Padding::Same)};
  const LoweredStep s = lower_training_step(resolve_network(n));
  std::vector<Op> gemms;
  for (const Op& op : s.ops)
    if (op.kind == OpKind::Gemm) gemms.push_back(op);
  ASSERT_EQ(gemms.size(), 5u);  // 2 forward, bwd-data of conv2 only, 2 bwd-weight
  EXPECT_EQ(gemms[0].gemm_at(8).m, 8 * 784);
  EXPECT_EQ(gemms[0].gemm_at(8).n, 32);
  EXPECT_EQ(gemms[0].gemm_at(8).k, 25);
  EXPECT_EQ(gemms[1].gemm_at(8).k, 25 * 32);
  // Backward runs in reverse: conv2 data gradient, conv2 weight gradient, conv1 weight gradient.
  EXPECT_EQ(gemms[2].phase, Phase::BackwardData);
  EXPECT_EQ(gemms[2].gemm_at(8).m, 8 * 784);
  EXPECT_EQ(gemms[2].gemm_at(8).n, 32);
  EXPECT_EQ(gemms[2].gemm_at(8).k, 25 * 64);
  EXPECT_EQ(gemms[3].phase, Phase::BackwardWeight);
  EXPECT_EQ(gemms[3].grad_params, 25 * 32 * 64 + 64);
  EXPECT_EQ(gemms[4].gemm_at(8).m, 25);
  EXPECT_EQ(gemms[4].gemm_at(8).k, 8 * 784);
  EXPECT_EQ(s.ops.back().phase, Phase::Update);
  EXPECT_EQ(s.ops.back().elements_at(8), s.params);
}

// A stride-2 convolution's data gradient is its transposed convolution: exactly as many MACs as
// the forward GEMM (each forward MAC has one backward MAC), not the 4x of convolving a
// zero-dilated dY. 16x16x64 -> 8x8x128, 3x3: forward 64 out-pixels x 128 x 576; backward data
// 256 in-pixels x 64 x (9 x 128 x 64 / 256 = 288).
TEST(Lowering, StridedConvDataGradientHasTheForwardMacs) {
  NetworkSpec n;
  n.input = {64, 16, 16};
  n.layers = {conv(64, 3, 1, Padding::Same), conv(128, 3, 2, Padding::Same)};
  const LoweredStep s = lower_training_step(resolve_network(n));
  const Op* fwd = nullptr;
  const Op* bd = nullptr;
  for (const Op& op : s.ops) {
    if (op.kind != OpKind::Gemm || op.layer != 1) continue;
    if (op.phase == Phase::Forward) fwd = &op;
    if (op.phase == Phase::BackwardData) bd = &op;
  }
  ASSERT_TRUE(fwd && bd);
  const GemmDims f = fwd->gemm_at(2), d = bd->gemm_at(2);
  EXPECT_EQ(f.m * f.n * f.k, 2 * 64 * 128 * 576);
  EXPECT_EQ(d.m, 2 * 256);
  EXPECT_EQ(d.n, 64);
  EXPECT_EQ(d.k, 288);
  EXPECT_EQ(d.m * d.n * d.k, f.m * f.n * f.k);
  EXPECT_DOUBLE_EQ(bd->a_unique_fraction, 64.0 * 128 / (256.0 * 288));  // dY once per 9 taps / 4
}

}  // namespace kp
