// The analytic update against the fold formula and the overlap rules.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "core/precision.h"
#include "core/config_doc.h"
#include "core/lowering.h"
#include "sim/analytic/chip_analytic.h"
#include "sim/analytic/collective_analytic.h"
#include "sim/step_profile.h"
#include "sim/analytic/update_analytic.h"

namespace kp {
namespace {

HardwareSpec npu() {
  HardwareSpec hw;
  hw.name = "t";
  hw.clock_hz = 1e9;
  hw.array = {32, 32, 1, Dataflow::WeightStationary};
  hw.vector = {32, 1};
  hw.sram = {1e12, 1e15, 1};   // never the bound
  hw.dram = {"hbm2", 1e12, 1e15, 0, 1};
  hw.interconnect.link = {1e9, 1e-6};
  hw.interconnect.max_learners = 64;
  return hw;
}

// Two dense layers of 256 x 256 (65,792 parameters) on 256 features.
NetworkSpec two_dense_256() {
  NetworkSpec n;
  n.input = {256, 1, 1};
  LayerSpec d;
  d.kind = LayerKind::Dense;
  d.name = "fc";
  d.units = 256;
  n.layers = {d, d};
  return n;
}

}  // namespace

// SCALE-Sim conv1 (28x28x32 from 32x32x1, 5x5) on 32x32 ws: one fold of 2R + C + T - 2 = 878
// cycles; SCALE-Sim's reference report says Total Cycles 877 (the index of the last write). The
// exposed first fetch and last write take picoseconds at 1 PB/s.
TEST(ChipAnalytic, GemmTakesFoldCyclesWhenMemoryIsFree) {
  const ChipAnalytic chip(npu(), mixed_precision(DataType::Int8));
  const OpCost c = chip.gemm_cost({784, 32, 25});
  EXPECT_EQ(c.cycles, 878);
  EXPECT_NEAR(c.seconds, 878e-9, 1e-10);
  EXPECT_DOUBLE_EQ(c.macs, 784.0 * 32 * 25);
}

TEST(ChipAnalytic, FoldsSpreadOverArrays) {
  HardwareSpec hw = npu();
  hw.array.count = 4;
  const ChipAnalytic chip(hw, mixed_precision(DataType::Int8));
  // ws on 32x32: K=800 -> 25 row folds, N=64 -> 2 col folds: 50 folds, 13 per array.
  const OpCost c = chip.gemm_cost({196, 64, 800});
  EXPECT_EQ(c.cycles, 13 * (64 + 32 + 196 - 2));
}

// One tile (everything fits): A + B in (319 bursts of 64 B at 1 B/ns), the fold, C out (392 bursts).
TEST(ChipAnalytic, DramBoundWhenBandwidthIsScarce) {
  HardwareSpec hw = npu();
  hw.dram.bandwidth_bytes_per_s = 1e9;  // 1 B/ns
  const ChipAnalytic chip(hw, mixed_precision(DataType::Int8));
  const OpCost c = chip.gemm_cost({784, 32, 25});
  EXPECT_DOUBLE_EQ(c.dram_bytes, 784.0 * 25 + 25.0 * 32 + 784.0 * 32);
  EXPECT_NEAR(c.seconds, (319 * 64 + 878 + 392 * 64) * 1e-9, 1e-15);
}

// A weight-gradient GEMM (K = batch x pixels) larger than SRAM is tiled (sim/tile_plan.h): traffic
// grows linearly with the batch, never with its square; an implicit-GEMM operand moves less.
TEST(ChipAnalytic, BlockedTrafficIsLinearInTheBatch) {
  HardwareSpec hw = npu();
  hw.sram.capacity_bytes = 512 * 1024;
  const ChipAnalytic chip(hw, mixed_precision(DataType::Int8));
  const double m = 1152, n = 128;
  const OpCost c1 = chip.gemm_cost({1152, 128, 32 * 1024});
  const OpCost c2 = chip.gemm_cost({1152, 128, 64 * 1024});
  EXPECT_DOUBLE_EQ(c2.dram_bytes - m * n, 2 * (c1.dram_bytes - m * n));
  EXPECT_GE(c1.dram_bytes, m * 32 * 1024 + 32.0 * 1024 * n + m * n);
  const OpCost c3 = chip.gemm_cost({1152, 128, 32 * 1024}, 1.0 / 9);
  EXPECT_LT(c3.dram_bytes, c1.dram_bytes - 0.8 * m * 32 * 1024);
}

TEST(AnalyticUpdate, OneLearnerHasNoAllReduce) {
  NetworkSpec n;
  n.input = {16, 1, 1};
  LayerSpec d;
  d.kind = LayerKind::Dense;
  d.name = "fc";
  d.units = 8;
  n.layers = {d};
  const AnalyticUpdate u(npu(), lower_training_step(resolve_network(n)), mixed_precision(DataType::Int8));
  const UpdateResult r = u.simulate(32, 1);
  EXPECT_EQ(r.breakdown.allreduce_s, 0.0);
  EXPECT_DOUBLE_EQ(r.breakdown.t_update_s, r.breakdown.forward_s + r.breakdown.backward_s + r.breakdown.optimizer_s);
}

// With one bucket larger than the model, the all-reduce can only start when backward ends:
// all of it is exposed, and it equals the ring closed form on the whole gradient.
TEST(AnalyticUpdate, SingleBucketIsFullyExposed) {
  const NetworkSpec n = two_dense_256();
  HardwareSpec hw = npu();
  hw.interconnect.bucket_bytes = 1e12;
  const LoweredStep step = lower_training_step(resolve_network(n));
  const AnalyticUpdate u(hw, step, mixed_precision(DataType::Bf16));
  const UpdateResult r = u.simulate(64, 8);
  EXPECT_EQ(r.per_learner_batch, 8);
  EXPECT_NEAR(r.breakdown.allreduce_s, ring_allreduce_s(8, 2.0 * step.params, 1e-6, 1e9), 1e-15);
  EXPECT_NEAR(r.breakdown.allreduce_exposed_s, r.breakdown.allreduce_s, 1e-15);
  // One bucket per layer: layer 2's gradient all-reduce starts when its backward-weight ends
  // and overlaps layer 1's backward; layer 1's starts when both backward and the first are done.
  hw.interconnect.bucket_bytes = 1;
  std::vector<LayerRecord> rec;
  const UpdateResult two = AnalyticUpdate(hw, step, mixed_precision(DataType::Bf16)).simulate(64, 8, &rec);
  double t = 0, t_first_grad = -1;
  for (const LayerRecord& l : rec) {
    if (l.phase == Phase::Update) continue;
    t += l.seconds;
    if (l.phase == Phase::BackwardWeight && t_first_grad < 0) t_first_grad = t;
  }
  const double d_layer = ring_allreduce_s(8, 2.0 * (256 * 256 + 256), 1e-6, 1e9);  // both layers: 65,792 params
  const double expect = std::max(t_first_grad + d_layer, t) + d_layer - t;
  EXPECT_NEAR(two.breakdown.allreduce_exposed_s, expect, 1e-15);
  EXPECT_NEAR(two.breakdown.allreduce_s, 2 * d_layer, 1e-15);
}

// A per-learner batch that does not fit device memory runs as micro-steps: forward and backward
// repeat, the all-reduce overlaps only the last backward (DDP's no_sync), the optimizer runs once.
TEST(AnalyticUpdate, GradientAccumulationWhenTheBatchDoesNotFit) {
  const NetworkSpec n = two_dense_256();
  const LoweredStep step = lower_training_step(resolve_network(n));
  ASSERT_GT(step.activation_elements_per_sample, 0);
  HardwareSpec hw = npu();
  hw.interconnect.bucket_bytes = 1;
  const UpdateResult fits = AnalyticUpdate(hw, step, mixed_precision(DataType::Bf16)).simulate(64, 8);  // 8 per learner
  // Mixed precision (2-byte elements): bf16 weights and gradients, fp32 master copy and momentum,
  // 2 + 2 + 4 + 4 = 12 bytes per parameter; per sample the activations kept for backward and the
  // largest op output (256 elements), 2 bytes each. Room for exactly 10 samples.
  const double per_sample = 2.0 * step.activation_elements_per_sample + 2.0 * 256;
  hw.dram.capacity_bytes = 12.0 * step.params + 10.0 * per_sample;
  const MemoryNeed need = plain_memory_need(step, mixed_precision(DataType::Bf16).bytes);
  EXPECT_DOUBLE_EQ(need.fixed_bytes, 12.0 * step.params);
  EXPECT_DOUBLE_EQ(need.per_sample_bytes, per_sample);
  EXPECT_EQ(accumulation_steps(hw, need, 10), 1);
  EXPECT_EQ(accumulation_steps(hw, need, 11), 2);
  const UpdateResult r = AnalyticUpdate(hw, step, mixed_precision(DataType::Bf16)).simulate(256, 8);  // 32 per learner: 4 x 8
  EXPECT_EQ(r.per_learner_batch, 32);
  EXPECT_EQ(r.accumulation_steps, 4);
  const UpdateBreakdown &a = r.breakdown, &f = fits.breakdown;
  EXPECT_NEAR(a.forward_s, 4 * f.forward_s, 1e-15);
  EXPECT_NEAR(a.backward_s, 4 * f.backward_s, 1e-15);
  EXPECT_NEAR(a.allreduce_s, f.allreduce_s, 1e-15);
  EXPECT_NEAR(a.allreduce_exposed_s, f.allreduce_exposed_s, 1e-15);
  EXPECT_NEAR(a.optimizer_s, f.optimizer_s, 1e-15);
  hw.dram.capacity_bytes = 12.0 * step.params;  // not even one sample
  EXPECT_THROW(AnalyticUpdate(hw, step, mixed_precision(DataType::Bf16)).simulate(8, 1), ConfigError);
}

// PyTorch DDP's bucketing: parameters assigned in definition order, the first bucket closing at
// first_bucket (1 MiB), the next ones at bucket; reduced in the reverse order, each ready when its
// first-defined gradient is. Layers 0..3 hold 0.8, 0.4, 8 and 1.2 MB of gradient; backward
// produces them in the order 3, 2, 1, 0 at t = 1, 2, 3, 4 s. Assignment: {0, 1} = 1.2 MB >= 1 MiB,
// {2} = 8 MB >= 4 MiB, {3} = 1.2 MB (partial). Reduction order: {3} at 1 s, {2} at 2 s, {0, 1} at 4 s.
TEST(StepProfile, BucketsAsPyTorchDdp) {
  LoweredStep step;
  const int64_t params[] = {200000, 100000, 2000000, 300000};  // 4-byte gradients
  for (int32_t layer = 3; layer >= 0; --layer) {
    Op op;
    op.layer = layer;
    op.phase = Phase::BackwardWeight;
    op.grad_params = params[layer];
    step.ops.push_back(op);
  }
  OpCost one_second;
  one_second.seconds = 1.0;
  StepProfileBuilder b(step, 4.0 * 1048576, 1048576, 4, 1, nullptr);
  for (const Op& op : step.ops) b.add(op, one_second);
  const StepProfile prof = b.done();
  ASSERT_EQ(prof.buckets.size(), 3u);
  EXPECT_EQ(prof.buckets[0], std::make_pair(1.0, 1.2e6));
  EXPECT_EQ(prof.buckets[1], std::make_pair(2.0, 8.0e6));
  EXPECT_EQ(prof.buckets[2], std::make_pair(4.0, 1.2e6));
  // A first bucket larger than `bucket` is capped at it: {0} 0.8 MB, {1} 0.4 MB, ... one per layer.
  StepProfileBuilder tiny(step, 1.0, 1048576, 4, 1, nullptr);
  for (const Op& op : step.ops) tiny.add(op, one_second);
  EXPECT_EQ(tiny.done().buckets.size(), 4u);
}

}  // namespace kp

namespace kp {

// A precision change moves bytes and time as hand-computed (core/precision.h). The DRAM-bound
// GEMM above at 2-byte operands: A + B = 2 x (784 x 25 + 25 x 32) = 40,800 B in 638 bursts of 64 B,
// C = 2 x 784 x 32 = 50,176 B in 784 bursts, the same 878-cycle fold between them.
TEST(Precision, WiderOperandsMoveTwiceTheBytes) {
  HardwareSpec hw = npu();
  hw.dram.bandwidth_bytes_per_s = 1e9;  // 1 B/ns
  const OpCost c = ChipAnalytic(hw, mixed_precision(DataType::Bf16)).gemm_cost({784, 32, 25});
  EXPECT_DOUBLE_EQ(c.dram_bytes, 2 * (784.0 * 25 + 25.0 * 32 + 784.0 * 32));
  EXPECT_NEAR(c.seconds, (638 * 64 + 878 + 784 * 64) * 1e-9, 1e-15);
}

// A type the array runs at half its geometry's rate (peak / (2 R C count clock) = 0.5) takes
// twice the fold's 878 cycles when memory is free; the exposed first fetch (4-byte A + B: 1275
// bursts) and last write (1568 bursts) take 64 B each at 1 PB/s.
TEST(Precision, AHalfRateTypeDoublesTheFoldTime) {
  Precision p = mixed_precision(DataType::Fp32);
  p.matmul_speed = 0.5;
  const OpCost c = ChipAnalytic(npu(), p).gemm_cost({784, 32, 25});
  EXPECT_EQ(c.cycles, 878);  // the array's cycles at its geometry rate
  EXPECT_NEAR(c.seconds, 2 * 878e-9 + (1275 + 1568) * 64 / 1e15, 1e-18);
}

// The all-reduce carries the gradients' type: amp_bf16 keeps fp32 gradients (4 B per parameter),
// so the ring moves twice the bytes of 2-byte gradients over the same links.
TEST(Precision, TheAllReduceFollowsTheGradientType) {
  const NetworkSpec n = two_dense_256();
  HardwareSpec hw = npu();
  hw.interconnect.bucket_bytes = 1e12;
  const LoweredStep step = lower_training_step(resolve_network(n));
  PrecisionPolicy amp;
  ASSERT_TRUE(precision_preset("amp_bf16", amp));
  Precision p;
  p.policy = amp, p.bytes = tensor_bytes(amp);
  const UpdateResult r = AnalyticUpdate(hw, step, p).simulate(64, 8);
  EXPECT_NEAR(r.breakdown.allreduce_s, ring_allreduce_s(8, 4.0 * static_cast<double>(step.params), 1e-6, 1e9), 1e-15);
  // Forward products read 2-byte operands and the optimizer's work moves 4-byte master weights.
  const ChipAnalytic chip(hw, p);
  for (const Op& op : step.ops) {
    if (op.phase == Phase::Update) EXPECT_EQ(chip.op_bytes(op), 4);
    else EXPECT_EQ(chip.op_bytes(op), 2);
  }
}

}  // namespace kp
