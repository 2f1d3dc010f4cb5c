// Parallel layouts on hand-computed cases: footprints by tensor class (Rajbhandari et al. 2020),
// ZeRO ratios, Megatron's tensor-parallel all-reduces, the pipeline bubble's closed form, and plain
// data parallelism as the layout dp = P.
#include <gtest/gtest.h>

#include <memory>

#include "sim/analytic/layout_timer_analytic.h"
#include "sim/analytic/update_analytic.h"
#include "sim/layout_search.h"
#include "sim/layout_update.h"
#include "sim/memory_footprint.h"
#include "tests/sim/layout_fixture.h"

namespace kp {
namespace {

using namespace layout_fixture;

Layout layout(int64_t dp, int64_t tp, int64_t pp, int zero = 0) {
  Layout l;
  l.dp = dp, l.tp = tp, l.pp = pp, l.zero = zero;
  return l;
}

// Mixed-precision Adam: bf16 weights (2 B) and gradients (2 B), fp32 master copy and two moments
// (12 B): 16 bytes per parameter, as Rajbhandari et al. count; ZeRO-1/2/3 divide the optimizer
// state, then the gradients, then the weights by dp.
TEST(MemoryFootprint, MixedPrecisionAdamIsSixteenBytesPerParameterAndZeroShards) {
  const LoweredStep step = tiny_decoder();
  const StageStep st = shard_step(step, 1, 1, Recompute::None, false).front();
  ASSERT_EQ(st.step.params, step.params);
  const double p = static_cast<double>(step.params);
  const TensorBytes b = mixed_precision(DataType::Bf16).bytes;
  const Footprint f0 = stage_footprint(st, 0, layout(8, 1, 1, 0), b, 0, 1, 1e12);
  EXPECT_DOUBLE_EQ(f0.weights_bytes + f0.gradients_bytes + f0.optimizer_bytes, 16.0 * p);
  EXPECT_DOUBLE_EQ(f0.optimizer_bytes, 12.0 * p);
  const Footprint f1 = stage_footprint(st, 0, layout(8, 1, 1, 1), b, 0, 1, 1e12);
  const Footprint f2 = stage_footprint(st, 0, layout(8, 1, 1, 2), b, 0, 1, 1e12);
  const Footprint f3 = stage_footprint(st, 0, layout(8, 1, 1, 3), b, 0, 1, 1e12);
  EXPECT_DOUBLE_EQ(f1.optimizer_bytes, 12.0 * p / 8);
  EXPECT_DOUBLE_EQ(f1.gradients_bytes, 2.0 * p);
  EXPECT_DOUBLE_EQ(f2.gradients_bytes, 2.0 * p / 8);
  EXPECT_DOUBLE_EQ(f2.weights_bytes, 2.0 * p);
  EXPECT_DOUBLE_EQ(f3.weights_bytes, 2.0 * p / 8);
  // Rajbhandari et al.'s ratios at N_d = 8: (2 + 2 + 12/8) / 16 and (2 + 14/8) / 16, 16/8 / 16.
  EXPECT_NEAR((f1.weights_bytes + f1.gradients_bytes + f1.optimizer_bytes) / (16 * p), 5.5 / 16, 1e-12);
  EXPECT_NEAR((f2.weights_bytes + f2.gradients_bytes + f2.optimizer_bytes) / (16 * p), 3.75 / 16, 1e-12);
  EXPECT_NEAR((f3.weights_bytes + f3.gradients_bytes + f3.optimizer_bytes) / (16 * p), 2.0 / 16, 1e-12);
  // Full fp32: 4 + 4 + 8, no master copy (the weights are the master).
  const Footprint fp32 = stage_footprint(st, 0, layout(1, 1, 1), mixed_precision(DataType::Fp32).bytes, 0, 1, 1e12);
  EXPECT_DOUBLE_EQ(fp32.weights_bytes + fp32.gradients_bytes + fp32.optimizer_bytes, 16.0 * p);
  EXPECT_DOUBLE_EQ(fp32.optimizer_bytes, 8.0 * p);
}

// Megatron-LM: per transformer layer two all-reduces forward (attention output, MLP output) and
// two backward (their input gradients), each of S x d elements per sample; the vocabulary-split
// embedding adds one forward, the vocabulary-split output layer one backward.
TEST(ShardStep, TensorParallelAllReducesPerLayerAndSplitWork) {
  const LoweredStep step = tiny_decoder();
  const StageStep st = shard_step(step, 2, 1, Recompute::None, false).front();
  ASSERT_EQ(st.tp_reduce_forward.size(), static_cast<size_t>(2 * kLayers + 1));
  ASSERT_EQ(st.tp_reduce_backward.size(), static_cast<size_t>(2 * kLayers + 1));
  for (int64_t e : st.tp_reduce_forward) EXPECT_EQ(e, kSeq * kD);
  for (int64_t e : st.tp_reduce_backward) EXPECT_EQ(e, kSeq * kD);
  // Block weights (4 d^2 attention + 2 d d_ff MLP) and the embedding split; the 2L + 1 layer norms
  // (gain and bias, 2 d each) whole on every chip: (P - replicated) / 2 + replicated. (The position
  // rows share the embedding's gradient op and are split with the token rows: Megatron keeps
  // them whole, 1,024 parameters per chip here.)
  const int64_t replicated = (2 * kLayers + 1) * 2 * kD;
  EXPECT_EQ(st.step.params, (step.params - replicated) / 2 + replicated);
  // Every block GEMM does half the multiply-adds on each chip; the tied output layer too.
  const double full = step.gemm_macs_per_sample(), half = st.step.gemm_macs_per_sample();
  EXPECT_NEAR(half, full / 2, 1e-9 * full);
  EXPECT_TRUE(shard_step(step, 1, 1, Recompute::None, false).front().tp_reduce_forward.empty());
}

// Selective recompute reruns the attention core (scores, softmax, context: 2 S^2 hd H
// multiply-adds per layer) and frees the H S^2 scores; full recompute reruns every forward product.
TEST(ShardStep, RecomputeChargesForwardWorkAndFreesActivations) {
  const LoweredStep step = tiny_decoder();
  const StageStep none = shard_step(step, 1, 1, Recompute::None, false).front();
  const StageStep sel = shard_step(step, 1, 1, Recompute::Selective, false).front();
  const StageStep full = shard_step(step, 1, 1, Recompute::Full, false).front();
  const double core = static_cast<double>(kLayers) * 2.0 * kSeq * kSeq * kD;  // H hd = d
  EXPECT_NEAR(sel.step.gemm_macs_per_sample() - none.step.gemm_macs_per_sample(), core, 1e-9);
  double forward = 0;
  for (const Op& op : step.ops)
    if (op.phase == Phase::Forward && op.kind == OpKind::Gemm) forward += static_cast<double>(op.gemm_at(1).macs());
  EXPECT_NEAR(full.step.gemm_macs_per_sample() - none.step.gemm_macs_per_sample(), forward, 1e-9);
  EXPECT_EQ(none.saved_elements - sel.saved_elements, kLayers * 4 * kSeq * kSeq);  // 4 heads
  EXPECT_LT(full.saved_elements, sel.saved_elements);
}

// A timer whose every stage takes 1 s forward and 2 s backward per micro-batch, with free links:
// the pipeline takes (m + p - 1) x 3 s, of which (p - 1) x 3 s is the bubble, the fraction
// (p - 1) / (m + p - 1) of Huang et al. 2019.
class FixedTimer : public StageTimer {
 public:
  const char* fidelity() const override { return "fixed"; }
  StepProfile profile(const LoweredStep&, int64_t) const override {
    StepProfile p;
    p.forward_s = 1, p.backward_s = 2, p.backward_end_s = 3;
    return p;
  }
  double allreduce_s(const InterconnectSpec&, int64_t, double) const override { return 0; }
  double group_allreduce_s(const InterconnectSpec&, int64_t, int64_t, double) const override { return 0; }
  double p2p_s(const InterconnectSpec&, int64_t, double, bool) const override { return 0; }
};

TEST(LayoutUpdate, PipelineBubbleMatchesTheClosedForm) {
  HardwareSpec hw = chip();
  hw.interconnect.link = {1e30, 0};
  hw.interconnect.inter_node = {1e30, 0};
  const LayoutUpdate u(hw, tiny_decoder(), mixed_precision(DataType::Bf16).bytes, std::make_shared<FixedTimer>());
  for (int64_t pp : {2, 4})
    for (int64_t m : {1, 4, 16}) {
      Layout l = layout(1, 1, pp);
      l.micro_batch = 1;
      const LayoutResult r = u.simulate(m, l);
      EXPECT_EQ(r.micro_batches, m);
      const UpdateBreakdown& b = r.update.breakdown;
      EXPECT_NEAR(b.t_update_s, 3.0 * static_cast<double>(m + pp - 1), 1e-9);
      EXPECT_NEAR(b.pipeline_bubble_s / b.t_update_s, static_cast<double>(pp - 1) / static_cast<double>(m + pp - 1),
                  1e-9);
    }
}

// With tp = pp = 1 and no ZeRO the layout model is plain data parallelism.
TEST(LayoutUpdate, PlainLayoutEqualsTheDataParallelModel) {
  const HardwareSpec hw = chip();
  const LoweredStep step = tiny_decoder();
  const Precision bf16 = mixed_precision(DataType::Bf16);
  const AnalyticUpdate plain(hw, step, bf16);
  const LayoutUpdate u(hw, step, bf16.bytes, std::make_shared<AnalyticStageTimer>(hw, bf16));
  for (int64_t p : {1, 8, 16}) {
    const UpdateResult a = plain.simulate(16 * p, p);
    const LayoutResult b = u.simulate(16 * p, layout(p, 1, 1));
    EXPECT_NEAR(b.update.breakdown.t_update_s, a.breakdown.t_update_s, 1e-12 * a.breakdown.t_update_s) << p;
    EXPECT_NEAR(b.update.breakdown.allreduce_exposed_s, a.breakdown.allreduce_exposed_s, 1e-15);
    EXPECT_NEAR(b.footprint.total_bytes(), a.memory.total(), 1e-6);
  }
}

// A chip too small for plain data parallelism: the fixed layout reports fits = false (no abort);
// the search finds a layout that fits (sharding), and everything it returns fits.
TEST(LayoutModel, SearchFindsAFittingLayoutWhereDataParallelismDoesNot) {
  HardwareSpec hw = chip();
  const LoweredStep step = tiny_decoder();
  const Precision bf16 = mixed_precision(DataType::Bf16);
  const MemoryNeed need = plain_memory_need(step, bf16.bytes);
  hw.dram.capacity_bytes = 0.5 * (need.fixed_bytes + need.per_sample_bytes);
  auto u = std::make_shared<LayoutUpdate>(hw, step, bf16.bytes, std::make_shared<AnalyticStageTimer>(hw, bf16));
  EXPECT_FALSE(u->simulate(64, layout(8, 1, 1)).fits);
  // Not even one sample per micro-batch: the weights and state alone exceed the chip.
  Layout one = layout(8, 1, 1);
  one.micro_batch = 1;
  EXPECT_FALSE(u->simulate(64, one).fits);
  LayoutChoice search;
  search.search = true;
  const LayoutModel model(u, search);
  const UpdateResult r = model.simulate(64, 8);
  EXPECT_TRUE(r.fits);
  EXPECT_LE(r.memory.total(), hw.dram.capacity_bytes);
  // So what fits shards the weights or the state.
  EXPECT_TRUE(r.layout.tp > 1 || r.layout.pp > 1 || r.layout.zero > 0) << r.layout.text();
  EXPECT_GT(model.evaluated(), 10);
}

TEST(LayoutSpec, TextRoundTripsAndErrorsNameTheKey) {
  const LayoutChoice c = parse_layout_text("dp=64,tp=8,pp=4,zero=1,recompute=selective,micro_batch=2", "--layout");
  EXPECT_EQ(c.fixed.text(), "dp=64,tp=8,pp=4,zero=1,recompute=selective,micro_batch=2");
  EXPECT_EQ(c.fixed.chips(), 2048);
  EXPECT_TRUE(parse_layout_text("search", "--layout").search);
  try {
    parse_layout_text("tp=8,zero=4", "--layout");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("zero"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_layout_text("tp=2,tp=4", "--layout"), ConfigError);
  EXPECT_THROW(parse_layout_text("bogus=1", "--layout"), ConfigError);
}

}  // namespace
}  // namespace kp

namespace kp {
namespace {

// Sequence parallelism splits the replicated per-token work (norms, residual adds) over tp as well,
// with the same all-reduce volumes (as reduce-scatter + all-gather); 1F1B keeps p - s micro-batches
// of activations at stage s, GPipe all m.
TEST(ShardStep, SequenceParallelAndPipelineScheduleMemory) {
  const LoweredStep step = layout_fixture::tiny_decoder();
  const StageStep tp = shard_step(step, 2, 1, Recompute::None, false).front();
  const StageStep sp = shard_step(step, 2, 1, Recompute::None, true).front();
  EXPECT_LT(sp.saved_elements, tp.saved_elements);
  EXPECT_EQ(sp.tp_reduce_forward, tp.tp_reduce_forward);
  EXPECT_EQ(sp.step.params, tp.step.params);
  const std::vector<StageStep> stages = shard_step(step, 1, 4, Recompute::None, false);
  ASSERT_EQ(stages.size(), 4u);
  int64_t params = 0;
  for (const StageStep& s : stages) params += s.step.params;
  EXPECT_EQ(params, step.params);
  Layout l;
  l.dp = 1, l.pp = 4;
  const TensorBytes b = mixed_precision(DataType::Bf16).bytes;
  for (int s = 0; s < 4; ++s) {
    const double one = stage_footprint(stages[s], s, l, b, 1, 1, 1e12).activations_bytes;
    EXPECT_DOUBLE_EQ(stage_footprint(stages[s], s, l, b, 1, 16, 1e12).activations_bytes, (4 - s) * one) << s;
    l.schedule = PipeSchedule::GPipe;
    EXPECT_DOUBLE_EQ(stage_footprint(stages[s], s, l, b, 1, 16, 1e12).activations_bytes, 16 * one) << s;
    l.schedule = PipeSchedule::OneFOneB;
  }
}

}  // namespace
}  // namespace kp
