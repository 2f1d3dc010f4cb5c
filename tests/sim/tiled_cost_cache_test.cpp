// The tile-plan cost cache (sim/tiled_cost_cache.h) gives exactly the costs of planning afresh:
// every op of every shipped hardware x workload at three micro-batches, cached (first and second
// lookup) against uncached, bit for bit; and a design that changes a planning input (SRAM) is not
// served another design's plan.
#include "tests/legacy_precision.h"
#include "sim/tiled_cost_cache.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "core/config_doc.h"
#include "core/network_spec.h"
#include "core/workload_spec.h"
#include "sim/analytic/chip_analytic.h"

namespace kp {
namespace {

bool same(const OpCost& a, const OpCost& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(TiledCostCache, CachedEqualsUncachedBitForBit) {
  const std::string src(KP_SOURCE_DIR);
  int ops = 0;
  for (const char* hw_name : {"edge_npu", "h100_cluster", "t4_cluster", "tpu_v3_pod"})
    for (const char* wl : {"fmnist_mlp", "resnet50_imagenet"}) {
      const HardwareSpec hw = parse_hardware(ConfigDoc::load(src + "/hw_configs/" + hw_name + ".yaml"));
      const WorkloadSpec w = parse_workload(ConfigDoc::load(src + "/workloads/" + wl + ".yaml"));
      const LoweredStep step = lower_training_step(resolve_network(w.network));
      const ChipAnalytic chip(hw, legacy_precision(hw));
      for (int64_t m : {1, 16, 256})
        for (const Op& op : step.ops) {
          set_tiled_cost_cache(false);
          const OpCost fresh = chip.cost(op, m);
          set_tiled_cost_cache(true);
          const OpCost first = chip.cost(op, m), again = chip.cost(op, m);
          ASSERT_TRUE(same(fresh, first) && same(fresh, again)) << hw_name << " " << wl << " m=" << m;
          ++ops;
        }
    }
  EXPECT_GT(ops, 1000);
}

TEST(TiledCostCache, APlanningInputChangesTheAnswer) {
  HardwareSpec hw = parse_hardware(ConfigDoc::load(std::string(KP_SOURCE_DIR) + "/hw_configs/edge_npu.yaml"));
  const GemmDims g{4096, 1024, 4096};
  set_tiled_cost_cache(true);
  const OpCost big = ChipAnalytic(hw, mixed_precision(DataType::Bf16)).gemm_cost(g);
  hw.sram.capacity_bytes /= 64;  // smaller tiles: more DRAM traffic
  const OpCost small = ChipAnalytic(hw, mixed_precision(DataType::Bf16)).gemm_cost(g);
  set_tiled_cost_cache(false);
  const OpCost small_fresh = ChipAnalytic(hw, mixed_precision(DataType::Bf16)).gemm_cost(g);
  set_tiled_cost_cache(true);
  EXPECT_GT(small.dram_bytes, big.dram_bytes);
  EXPECT_TRUE(same(small, small_fresh));
}

}  // namespace
}  // namespace kp
