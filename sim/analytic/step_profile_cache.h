#pragma once
// One learner's step profiles (sim/step_profile.h) shared by the design points of a study. A
// study over new hardware times every op of the network for every design at each per-learner
// batch, yet most swept keys (link bandwidth, energy, cost, DRAM capacity) leave every op's cost
// and the gradient buckets as they were: designs that differ only there get the same profiles.
// Contract: get() returns exactly what `make` returns for a key it has seen with the same step;
// the key holds every input of AnalyticUpdate::profile (the tile plan's inputs as in
// sim/tiled_cost_cache.h: array geometry, count and dataflow, vector lanes and count, clock,
// compute efficiency, SRAM capacity and bandwidth, DRAM bandwidth, latency and channels; the
// gradient buckets' sizes; the kernel launch wait; the precision's widths and array speed; the
// micro-batch), so a hit is bit-identical to profiling afresh. One cache serves one LoweredStep
// (the caller's promise: a study keeps one per workload file); safe to share between threads.
// Off while set_tiled_cost_cache(false) (the benchmark's "before").
#include <cstdint>
#include <functional>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/hw_spec.h"
#include "core/precision.h"
#include "sim/memory_footprint.h"
#include "sim/step_profile.h"

namespace kp {

class StepProfileCache {
 public:
  StepProfile get(const HardwareSpec& hw, const Precision& precision, int64_t micro_batch,
                  const std::function<StepProfile()>& make);
  // plain_memory_need(step, bytes) of this cache's step, computed once per set of widths (it
  // walks every op: ~12% of a cached study when done twice per design).
  MemoryNeed memory_need(const LoweredStep& step, const TensorBytes& bytes);

  struct Key {
    int64_t rows, cols, count, dataflow, lanes, vcount, channels, launch_batching, micro_batch;
    int64_t matmul_bytes, elementwise_bytes, master_bytes, gradient_bytes;
    double clock, efficiency, sram_cap, sram_bw, dram_bw, dram_lat, bucket, first_bucket, launch_s, speed;
    bool operator==(const Key& o) const;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const;
  };

 private:
  std::mutex m_mutex;
  std::unordered_map<Key, StepProfile, KeyHash> m_profiles;
  std::vector<std::pair<TensorBytes, MemoryNeed>> m_needs;
};

}  // namespace kp
