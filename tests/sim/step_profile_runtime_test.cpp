// Fixed costs of hardware `runtime:` in the step profile (both fidelities go through it), against
// hand-computed steps.
#include <gtest/gtest.h>

#include "sim/step_profile.h"

namespace kp {
namespace {

// Forward GEMM (1 x 10 x 100 per sample), forward elementwise, backward-data and backward-weight
// GEMMs, one optimizer op, timed 10, 2, 8, 1 and 3 us.
struct Fixture {
  LoweredStep step;
  OpCost costs[5];
  Fixture() {
    step.layer_names = {"l"};
    const Phase phases[5] = {Phase::Forward, Phase::Forward, Phase::BackwardData, Phase::BackwardWeight, Phase::Update};
    const double us[5] = {10, 2, 8, 1, 3};
    for (int i = 0; i < 5; ++i) {
      Op op;
      op.phase = phases[i];
      op.kind = i == 1 || i == 4 ? OpKind::Elementwise : OpKind::Gemm;
      op.gemm = {1, 10, 100};
      op.batch_dim = BatchDim::M;
      step.ops.push_back(op);
      costs[i].seconds = us[i] * 1e-6;
    }
  }
  StepProfile profile(double launch_s, int64_t batch) const {
    StepProfileBuilder b(step, 1e9, 1e9, 2, batch, nullptr);
    b.set_kernel_launch_s(launch_s);
    for (int i = 0; i < 5; ++i) b.add(step.ops[static_cast<size_t>(i)], costs[i]);
    return b.done();
  }
};

HardwareSpec chip(int64_t devices_per_node) {
  HardwareSpec hw;
  hw.interconnect.devices_per_node = devices_per_node;
  hw.interconnect.max_learners = 8;
  return hw;
}

TEST(StepRuntime, AbsentSectionAddsNothing) {
  const Fixture f;
  const UpdateResult r = finish_update(f.profile(0, 8), chip(1), 8, 1);
  EXPECT_NEAR(r.breakdown.t_update_s, 24e-6, 1e-15);
  EXPECT_EQ(r.kernels, 5);
  EXPECT_EQ(r.breakdown.host_s + r.breakdown.input_s + r.breakdown.launch_wait_s, 0);
}

// Launch 5 us: the 2, 1 and 3 us kernels wait 3, 4 and 2 us: forward 10 + 5, backward 8 + 5,
// optimizer 5. Input: the first GEMM reads 1 x 100 elements of 2 B per sample = 200 B; 8 samples
// over 1.6 MB/s take 1 ms. Step overhead 2 ms: busy 33 us + 3 ms. The pipeline feeds a host of 4
// devices (2 learners here: 16 samples) at 1000 samples/s: 16 ms, so 16 - 3.033 ms are exposed.
TEST(StepRuntime, LaunchWaitsHostCopyAndInputPipeline) {
  const Fixture f;
  HardwareSpec hw = chip(4);
  hw.runtime = {true, 5e-6, 2e-3, 1.6e6, 1000, false};
  const StepProfile p = f.profile(5e-6, 8);
  EXPECT_DOUBLE_EQ(p.input_bytes_per_sample, 200);
  const UpdateResult r = finish_update(p, hw, 8, 2);
  const UpdateBreakdown& b = r.breakdown;
  EXPECT_NEAR(b.forward_s, 15e-6, 1e-15);
  EXPECT_NEAR(b.backward_s, 13e-6, 1e-15);
  EXPECT_NEAR(b.optimizer_s, 5e-6, 1e-15);
  EXPECT_NEAR(b.launch_wait_s, 9e-6, 1e-15);
  EXPECT_NEAR(b.host_s, 2e-3, 1e-15);
  EXPECT_NEAR(b.input_s, 1e-3 + (16e-3 - 3.033e-3), 1e-12);
  EXPECT_NEAR(b.t_update_s, 16e-3, 1e-12);
  // A fast pipeline hides behind the step: only the copy is exposed.
  hw.runtime.input_samples_per_s = 1e6;
  EXPECT_NEAR(finish_update(p, hw, 8, 2).breakdown.t_update_s, 3.033e-3, 1e-12);
}

// Launch batching (CUDA graphs): the kernels do not wait; one launch per step joins the host time.
TEST(StepRuntime, LaunchBatchingPaysOneLaunchPerStep) {
  const Fixture f;
  HardwareSpec hw = chip(1);
  hw.runtime = {true, 5e-6, 0, 0, 0, true};
  const UpdateResult r = finish_update(f.profile(0, 8), hw, 8, 1);
  EXPECT_NEAR(r.breakdown.host_s, 5e-6, 1e-15);
  EXPECT_NEAR(r.breakdown.t_update_s, 29e-6, 1e-15);
}

}  // namespace
}  // namespace kp
