// The shared step-profile cache (sim/analytic/step_profile_cache.h) gives exactly the update of
// profiling afresh: a design that changes any input of a profile gets its own (each such field
// changed in turn, against a model without the cache, bit for bit), and a design that changes
// only what the profile does not read (link bandwidth, DRAM capacity, energy) is served the
// stored one without profiling.
#include "sim/analytic/step_profile_cache.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "core/config_doc.h"
#include "core/network_spec.h"
#include "core/workload_spec.h"
#include "sim/analytic/update_analytic.h"
#include "sim/tiled_cost_cache.h"
#include "tests/legacy_precision.h"

namespace kp {
namespace {

bool same(const UpdateBreakdown& a, const UpdateBreakdown& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

struct Design {
  std::string what;
  std::function<void(HardwareSpec&, Precision&)> change;
};

TEST(StepProfileCache, EveryInputOfAProfileChangesItBitForBit) {
  const std::string src(KP_SOURCE_DIR);
  const HardwareSpec base = parse_hardware(ConfigDoc::load(src + "/hw_configs/tpu_v3_pod.yaml"));
  const WorkloadSpec w = parse_workload(ConfigDoc::load(src + "/workloads/resnet50_imagenet.yaml"));
  const LoweredStep step = lower_training_step(resolve_network(w.network));
  const std::vector<Design> designs = {
      {"base", [](HardwareSpec&, Precision&) {}},
      {"rows", [](HardwareSpec& h, Precision&) { h.array.rows /= 2; }},
      {"cols", [](HardwareSpec& h, Precision&) { h.array.cols /= 2; }},
      {"count", [](HardwareSpec& h, Precision&) { h.array.count *= 2; }},
      {"dataflow", [](HardwareSpec& h, Precision&) { h.array.dataflow = Dataflow::OutputStationary; }},
      {"lanes", [](HardwareSpec& h, Precision&) { h.vector.lanes /= 4; }},
      {"vector count", [](HardwareSpec& h, Precision&) { h.vector.count += 1; }},
      {"clock", [](HardwareSpec& h, Precision&) { h.clock_hz *= 1.5; }},
      {"efficiency", [](HardwareSpec& h, Precision&) { h.compute_efficiency *= 0.5; }},
      {"sram capacity", [](HardwareSpec& h, Precision&) { h.sram.capacity_bytes /= 8; }},
      {"sram bandwidth", [](HardwareSpec& h, Precision&) { h.sram.bandwidth_bytes_per_s /= 16; }},
      {"dram bandwidth", [](HardwareSpec& h, Precision&) { h.dram.bandwidth_bytes_per_s /= 8; }},
      {"dram latency", [](HardwareSpec& h, Precision&) { h.dram.latency_s *= 20; }},
      {"dram channels", [](HardwareSpec& h, Precision&) { h.dram.channels = 1; }},
      {"bucket", [](HardwareSpec& h, Precision&) { h.interconnect.bucket_bytes /= 50; }},
      {"first bucket", [](HardwareSpec& h, Precision&) { h.interconnect.first_bucket_bytes *= 4; }},
      {"launch", [](HardwareSpec& h, Precision&) { h.runtime.kernel_launch_s = 20e-6; }},
      {"launch batching", [](HardwareSpec& h, Precision&) {
         h.runtime.kernel_launch_s = 20e-6, h.runtime.launch_batching = true; }},
      {"fp32", [](HardwareSpec&, Precision& p) { p = mixed_precision(DataType::Fp32); }},
      {"array speed", [](HardwareSpec&, Precision& p) { p.matmul_speed = 0.5; }},
  };
  StepProfileCache shared;
  set_tiled_cost_cache(true);
  for (int pass = 0; pass < 2; ++pass)  // the second pass is served from the cache
    for (const Design& d : designs) {
      HardwareSpec hw = base;
      Precision p = legacy_precision(hw);
      d.change(hw, p);
      for (int64_t batch : {256, 4096}) {
        const UpdateResult cached = AnalyticUpdate(hw, step, p, &shared).simulate(batch, 64);
        set_tiled_cost_cache(false);
        const UpdateResult fresh = AnalyticUpdate(hw, step, p).simulate(batch, 64);
        set_tiled_cost_cache(true);
        ASSERT_TRUE(same(cached.breakdown, fresh.breakdown)) << d.what << " pass " << pass << " batch " << batch;
        if (d.what != "base") {  // the field matters: the step differs from the base design's
          const UpdateResult b = AnalyticUpdate(base, step, legacy_precision(base)).simulate(batch, 64);
          EXPECT_NE(b.breakdown.t_update_s, fresh.breakdown.t_update_s) << d.what << " batch " << batch;
        }
      }
    }
}

TEST(StepProfileCache, FieldsOutsideTheProfileShareIt) {
  HardwareSpec hw = parse_hardware(ConfigDoc::load(std::string(KP_SOURCE_DIR) + "/hw_configs/tpu_v3_pod.yaml"));
  const Precision p = legacy_precision(hw);
  StepProfileCache cache;
  int made = 0;
  StepProfile one;
  one.forward_s = 1.25;
  const auto make = [&] { ++made; return one; };
  set_tiled_cost_cache(true);
  EXPECT_EQ(cache.get(hw, p, 16, make).forward_s, 1.25);
  hw.interconnect.link.bandwidth_bytes_per_s /= 2, hw.dram.capacity_bytes *= 2, hw.energy.mac_j *= 3;
  EXPECT_EQ(cache.get(hw, p, 16, make).forward_s, 1.25);
  EXPECT_EQ(made, 1);
  (void)cache.get(hw, p, 32, make);  // another micro-batch
  hw.clock_hz *= 2;
  (void)cache.get(hw, p, 16, make);  // another clock
  EXPECT_EQ(made, 3);
  set_tiled_cost_cache(false);  // off: every call profiles
  (void)cache.get(hw, p, 16, make);
  set_tiled_cost_cache(true);
  EXPECT_EQ(made, 4);
}

TEST(StepProfileCache, MemoryNeedIsTheStepsPerSetOfWidths) {
  const WorkloadSpec w = parse_workload(ConfigDoc::load(std::string(KP_SOURCE_DIR) + "/workloads/resnet50_imagenet.yaml"));
  const LoweredStep step = lower_training_step(resolve_network(w.network));
  StepProfileCache cache;
  set_tiled_cost_cache(true);
  for (DataType t : {DataType::Bf16, DataType::Fp32, DataType::Bf16}) {
    const TensorBytes bytes = mixed_precision(t).bytes;
    const MemoryNeed fresh = plain_memory_need(step, bytes), cached = cache.memory_need(step, bytes);
    EXPECT_EQ(cached.fixed_bytes, fresh.fixed_bytes);
    EXPECT_EQ(cached.per_sample_bytes, fresh.per_sample_bytes);
  }
  EXPECT_NE(cache.memory_need(step, mixed_precision(DataType::Bf16).bytes).per_sample_bytes,
            cache.memory_need(step, mixed_precision(DataType::Fp32).bytes).per_sample_bytes);
}

}  // namespace
}  // namespace kp
