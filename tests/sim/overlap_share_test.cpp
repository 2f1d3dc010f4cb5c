// Issue 35, "overlap is not free": while a bucket's all-reduce runs, backward runs on what the
// collective leaves it (hardware interconnect.overlap; the closed form in sim/step_profile.h).
// Every expected time below is worked by hand from that formula.
#include <gtest/gtest.h>

#include <vector>

#include "sim/step_profile.h"

namespace kp {
namespace {

constexpr double kMs = 1e-3;

// 40 units, 320 GB/s device memory; the collective holds `units` and moves `dram_per_byte`.
HardwareSpec chip(int64_t units, double dram_per_byte) {
  HardwareSpec hw;
  hw.array.count = 40;
  hw.dram.bandwidth_bytes_per_s = 320e9;
  hw.interconnect.max_learners = 8;
  hw.interconnect.overlap.units = units;
  hw.interconnect.overlap.dram_bytes_per_byte = dram_per_byte;
  return hw;
}

// Backward ops (seconds, compute_s, dram_bytes); bucket b is ready when op ready_op[b] ends.
StepProfile profile(const std::vector<ProfileOp>& ops, const std::vector<int64_t>& ready_op, double bucket_bytes) {
  StepProfile p;
  p.ops = ops;
  double t = 0;
  std::vector<double> ends;
  for (const ProfileOp& op : ops) ends.push_back(t += op.seconds);
  p.backward_s = p.backward_end_s = t;
  for (int64_t i : ready_op) p.buckets.emplace_back(ends[static_cast<size_t>(i)], bucket_bytes);
  p.bucket_ready_op = ready_op;
  return p;
}

// A 2 ms op makes the bucket ready; its 4 ms all-reduce overlaps a compute-bound 10 ms op. The
// collective holds 8 of 40 units: s = 10 / (0.8 x 10) = 1.25, so the 4 ms overlapped do 3.2 ms of
// the op's work and the other 6.8 ms run after: backward ends at 2 + 4 + 6.8 = 12.8 ms, not 12.
TEST(OverlapShare, ComputeBoundOpRunsOnTheUnitsLeft) {
  const StepProfile p = profile({{2 * kMs, 2 * kMs, 0}, {10 * kMs, 10 * kMs, 0}}, {0}, 1e6);
  const std::vector<double> d = {4 * kMs};
  std::vector<double> starts;
  const UpdateResult r = finish_update(p, chip(8, 0), 8, 2, 1, &d, &starts);
  EXPECT_NEAR(r.breakdown.backward_s, 12.8 * kMs, 1e-15);
  EXPECT_NEAR(r.breakdown.allreduce_s, 4 * kMs, 1e-15);  // the collective is not sped up
  EXPECT_EQ(r.breakdown.allreduce_exposed_s, 0.0);
  EXPECT_NEAR(r.breakdown.t_update_s, 12.8 * kMs, 1e-15);
  ASSERT_EQ(starts.size(), 1u);
  EXPECT_NEAR(starts[0], 2 * kMs, 1e-15);
  // Absent interconnect.overlap: the contention-free pipeline, 12 ms.
  EXPECT_NEAR(finish_update(p, chip(0, 0), 8, 2, 1, &d).breakdown.t_update_s, 12 * kMs, 1e-15);
}

// Memory-bound: the op moves 3.2 GB (10 ms at 320 GB/s). The bucket of 0.32 GB on a ring of 2
// sends 2 (P-1)/P x 0.32 = 0.32 GB; at 3 device-memory bytes per byte over 4 ms the collective
// takes 240 GB/s, leaving 80: s = 3.2 / (80 x 0.01) = 4. 4 ms overlapped do 1 ms of the op's
// work: backward ends at 2 + 4 + 9 = 15 ms.
TEST(OverlapShare, MemoryBoundOpSharesTheBandwidth) {
  const StepProfile p = profile({{2 * kMs, 2 * kMs, 0}, {10 * kMs, 1 * kMs, 3.2e9}}, {0}, 0.32e9);
  const std::vector<double> d = {4 * kMs};
  const UpdateResult r = finish_update(p, chip(0, 3), 8, 2, 1, &d);
  EXPECT_NEAR(r.breakdown.backward_s, 15 * kMs, 1e-15);
  EXPECT_NEAR(r.breakdown.t_update_s, 15 * kMs, 1e-15);
  // Both shares at once: the roofline takes the larger stretch (4 > 1 / 0.8 x 0.1).
  EXPECT_NEAR(finish_update(p, chip(8, 3), 8, 2, 1, &d).breakdown.t_update_s, 15 * kMs, 1e-15);
  // A collective that needs all of the bandwidth (12 bytes per byte: 960 GB/s) stops the op for
  // its 4 ms: 2 + 4 + 10 = 16 ms.
  EXPECT_NEAR(finish_update(p, chip(0, 12), 8, 2, 1, &d).breakdown.t_update_s, 16 * kMs, 1e-15);
}

// A 1 ms op under the 4 ms all-reduce runs 1.25 ms; the all-reduce still ends at 6 ms, so 2.75 ms
// are exposed after backward (3.25 ms): the step is 6 ms either way.
TEST(OverlapShare, ExposedAllReduceHidesTheStretch) {
  const StepProfile p = profile({{2 * kMs, 2 * kMs, 0}, {1 * kMs, 1 * kMs, 0}}, {0}, 1e6);
  const std::vector<double> d = {4 * kMs};
  const UpdateResult r = finish_update(p, chip(8, 0), 8, 2, 1, &d);
  EXPECT_NEAR(r.breakdown.backward_s, 3.25 * kMs, 1e-15);
  EXPECT_NEAR(r.breakdown.allreduce_exposed_s, 2.75 * kMs, 1e-15);
  EXPECT_NEAR(r.breakdown.t_update_s, 6 * kMs, 1e-15);
}

// The stretch delays the next bucket: op 1 ends at 12.8 ms (first case), so bucket 1 (3 ms)
// starts then and ends at 15.8 ms; the 1 ms op 2 has no compute (s = 1) and ends at 13.8 ms:
// 2 ms exposed, step 15.8 ms (15 ms without sharing).
TEST(OverlapShare, AStretchedOpDelaysTheNextBucket) {
  const StepProfile p = profile({{2 * kMs, 2 * kMs, 0}, {10 * kMs, 10 * kMs, 0}, {1 * kMs, 0, 0}}, {0, 1}, 1e6);
  const std::vector<double> d = {4 * kMs, 3 * kMs};
  std::vector<double> starts;
  const UpdateResult r = finish_update(p, chip(8, 0), 8, 2, 1, &d, &starts);
  ASSERT_EQ(starts.size(), 2u);
  EXPECT_NEAR(starts[1], 12.8 * kMs, 1e-15);
  EXPECT_NEAR(r.breakdown.backward_s, 13.8 * kMs, 1e-15);
  EXPECT_NEAR(r.breakdown.allreduce_exposed_s, 2 * kMs, 1e-15);
  EXPECT_NEAR(r.breakdown.t_update_s, 15.8 * kMs, 1e-15);
  EXPECT_NEAR(finish_update(p, chip(0, 0), 8, 2, 1, &d).breakdown.t_update_s, 15 * kMs, 1e-15);
}

// Gradient accumulation: only the last micro-step all-reduces, so only it stretches: two
// micro-steps of 12 ms, the second 0.8 ms longer (first case): 24.8 ms.
TEST(OverlapShare, OnlyTheLastMicroStepOverlaps) {
  const StepProfile p = profile({{2 * kMs, 2 * kMs, 0}, {10 * kMs, 10 * kMs, 0}}, {0}, 1e6);
  const std::vector<double> d = {4 * kMs};
  EXPECT_NEAR(finish_update(p, chip(8, 0), 8, 2, 2, &d).breakdown.t_update_s, 24.8 * kMs, 1e-15);
}

// The builder records each forward/backward op and, per bucket, the op that makes it ready: two
// weight-gradient ops of 2000 B each with 2000 B buckets give one bucket each, reduced in backward
// order (op 1's first).
TEST(OverlapShare, BuilderRecordsTheOpThatReadiesEachBucket) {
  LoweredStep step;
  step.layer_names = {"l"};
  const Phase phases[4] = {Phase::Forward, Phase::BackwardWeight, Phase::BackwardWeight, Phase::Update};
  for (const Phase ph : phases) {
    Op op;
    op.phase = ph;
    op.kind = OpKind::Elementwise;
    op.grad_params = ph == Phase::BackwardWeight ? 1000 : 0;
    step.ops.push_back(op);
  }
  StepProfileBuilder b(step, 2000, 2000, 2, 1, nullptr);
  OpCost c;
  c.seconds = 1 * kMs, c.compute_s = 0.5 * kMs, c.dram_bytes = 7;
  for (const Op& op : step.ops) b.add(op, c);
  const StepProfile p = b.done();
  ASSERT_EQ(p.ops.size(), 3u);  // the optimizer's op is not overlapped
  EXPECT_EQ(p.ops[1].compute_s, 0.5 * kMs);
  EXPECT_EQ(p.ops[1].dram_bytes, 7.0);
  ASSERT_EQ(p.bucket_ready_op.size(), 2u);
  EXPECT_EQ(p.bucket_ready_op[0], 1);
  EXPECT_EQ(p.bucket_ready_op[1], 2);
  EXPECT_NEAR(p.buckets[0].first, 2 * kMs, 1e-15);
}

}  // namespace
}  // namespace kp
