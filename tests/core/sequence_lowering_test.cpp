// Lowering of sequence layers and graph joins on hand-computed cases.
#include <gtest/gtest.h>

#include <vector>

#include "core/lowering.h"
#include "core/network_spec.h"

namespace kp {
namespace {

LayerSpec layer(LayerKind k, const char* name) {
  LayerSpec l;
  l.kind = k;
  l.name = name;
  return l;
}

NetworkSpec sequence_net(int64_t positions, int64_t features) {
  NetworkSpec n;
  n.input = Shape{features, positions, 1, true, 0};
  return n;
}

std::vector<Op> gemms(const LoweredStep& s) {
  std::vector<Op> out;
  for (const Op& op : s.ops)
    if (op.kind == OpKind::Gemm) out.push_back(op);
  return out;
}

TEST(SequenceLowering, AttentionIsProjectionsPlusBatchedScoreProducts) {
  // S = 8 positions, d = 16, 4 heads of 4, 2 KV heads: Q K V projection N = (4 + 2*2) * 4 = 32.
  NetworkSpec n = sequence_net(8, 16);
  LayerSpec a = layer(LayerKind::Attention, "attn");
  a.heads = 4, a.kv_heads = 2, a.bias = false;
  n.layers = {a};
  const ResolvedNetwork net = resolve_network(n);
  EXPECT_EQ(net.layers[0].params, 16 * 32 + 16 * 16);
  const std::vector<Op> g = gemms(lower_training_step(net));
  ASSERT_EQ(g.size(), 4u + 2 + 4 + 1);  // forward 4; out-proj data and weight; dP dV dQ dK; QKV weight
  EXPECT_EQ(g[0].gemm_at(3).m, 3 * 8);  // the QKV projection: M = B S
  EXPECT_EQ(g[0].gemm.n, 32);
  EXPECT_EQ(g[0].gemm.k, 16);
  const GemmDims scores = g[1].gemm_at(3);
  EXPECT_EQ(scores.groups, 3 * 4);  // one problem per head and sample
  EXPECT_EQ(scores.m, 8);
  EXPECT_EQ(scores.n, 8);
  EXPECT_EQ(scores.k, 4);
  EXPECT_EQ(scores.macs(), 12 * 8 * 8 * 4);
  const GemmDims context = g[2].gemm_at(1);
  EXPECT_EQ(context.m, 8);
  EXPECT_EQ(context.n, 4);
  EXPECT_EQ(context.k, 8);
  // The attention reads the network input: no data gradient of the QKV projection.
  EXPECT_EQ(g.back().phase, Phase::BackwardWeight);
  EXPECT_EQ(g.back().grad_params, 16 * 32);
}

TEST(SequenceLowering, FusedAttentionKeepsTheScoresOffDram) {
  NetworkSpec n = sequence_net(8, 16);
  LayerSpec a = layer(LayerKind::Attention, "attn");
  a.heads = 2, a.fused = true;
  n.layers = {a};
  const std::vector<Op> g = gemms(lower_training_step(resolve_network(n)));
  EXPECT_DOUBLE_EQ(g[1].out_fraction, 0.0);        // scores not written
  EXPECT_DOUBLE_EQ(g[2].a_unique_fraction, 0.0);   // probabilities not read
  EXPECT_DOUBLE_EQ(g[0].out_fraction, 1.0);
}

TEST(SequenceLowering, LstmIsAChainOfSmallGemmsOverPositions) {
  // S = 10, 6 features in, 4 units, both directions: the recurrent product is B x 16 x 4 per
  // step and direction, 10 steps one after another.
  NetworkSpec n = sequence_net(10, 6);
  LayerSpec l = layer(LayerKind::Lstm, "lstm");
  l.units = 4, l.bidirectional = true;
  n.layers = {l};
  const ResolvedNetwork net = resolve_network(n);
  EXPECT_EQ(net.layers[0].params, 2 * (16 * (6 + 4) + 2 * 16));
  EXPECT_EQ(net.layers[0].out.c, 8);
  const LoweredStep step = lower_training_step(net);
  const std::vector<Op> g = gemms(step);
  ASSERT_GE(g.size(), 2u);
  EXPECT_EQ(g[1].serial, 10);
  const GemmDims rec = g[1].gemm_at(5);
  EXPECT_EQ(rec.m, 5);
  EXPECT_EQ(rec.n, 16);
  EXPECT_EQ(rec.k, 4);
  EXPECT_EQ(rec.groups, 2);
  // MACs per sample: input projection 10*16*6, recurrence 10*16*4, each x2 directions, forward;
  // backward: recurrence 10*4*16, weight grads 4*16*10 + 6*16*10 (no input data gradient).
  const double fwd = 2.0 * (10 * 16 * 6 + 10 * 16 * 4), bwd = 2.0 * (10 * 4 * 16 + 4 * 16 * 10 + 6 * 16 * 10);
  EXPECT_DOUBLE_EQ(step.gemm_macs_per_sample(), fwd + bwd);
  int64_t grads = 0;
  for (const Op& op : step.ops) grads += op.grad_params;
  EXPECT_EQ(grads, net.params);
}

TEST(SequenceLowering, GroupedAndDepthwiseConvolutionsAreBatchedGemms) {
  NetworkSpec n;
  n.input = Shape{8, 10, 10};
  LayerSpec c = layer(LayerKind::Conv2d, "dw");
  c.filters = 8, c.kernel = 3, c.groups = 8, c.padding = Padding::Same, c.bias = false;
  LayerSpec p = layer(LayerKind::Conv2d, "grouped");
  p.filters = 16, p.kernel = 1, p.kernel_w = 3, p.groups = 2, p.padding = Padding::Explicit, p.pad = 0, p.pad_w = 1,
  p.bias = false;
  n.layers = {c, p};
  const ResolvedNetwork net = resolve_network(n);
  EXPECT_EQ(net.layers[0].params, 9 * 8);             // depthwise: one 3x3 filter per channel
  EXPECT_EQ(net.layers[1].params, 3 * (8 / 2) * 16);  // 1x3 over 4 channels per group
  EXPECT_EQ(net.layers[1].out.h, 10);
  EXPECT_EQ(net.layers[1].out.w, 10);
  const std::vector<Op> g = gemms(lower_training_step(net));
  EXPECT_EQ(g[0].gemm.groups, 8);
  EXPECT_EQ(g[0].gemm.n, 1);
  EXPECT_EQ(g[0].gemm.k, 9);
  EXPECT_EQ(g[1].gemm.groups, 2);
  EXPECT_EQ(g[1].gemm.n, 8);
  EXPECT_EQ(g[1].gemm.k, 3 * 4);
}

TEST(SequenceLowering, DilationWidensTheWindow) {
  NetworkSpec n = sequence_net(20, 4);
  LayerSpec c = layer(LayerKind::Conv1d, "c");
  c.filters = 4, c.kernel = 3, c.dilation = 4;  // span 9: 20 - 9 + 1 = 12 outputs
  n.layers = {c};
  EXPECT_EQ(resolve_network(n).layers[0].out.h, 12);
}

TEST(SequenceLowering, AForkedTensorSumsItsGradients) {
  // x feeds a dense and the add: one extra reader, one gradient sum of x's size.
  NetworkSpec n = sequence_net(4, 8);
  LayerSpec x = layer(LayerKind::Dense, "x");
  x.units = 8;
  LayerSpec y = layer(LayerKind::Dense, "y");
  y.units = 8;
  LayerSpec sum = layer(LayerKind::Add, "sum");
  sum.inputs = {"y", "x"};
  n.layers = {x, y, sum};
  const LoweredStep step = lower_training_step(resolve_network(n));
  int sums = 0;
  for (const Op& op : step.ops)
    if (op.layer == 0 && op.phase == Phase::BackwardData && op.kind == OpKind::Elementwise) {
      ++sums;
      EXPECT_EQ(op.elements, 4 * 8);
    }
  EXPECT_EQ(sums, 1);
}

}  // namespace
}  // namespace kp
