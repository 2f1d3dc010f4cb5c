#include "sim/analytic/step_profile_cache.h"

#include <cstring>

#include "sim/tiled_cost_cache.h"

namespace kp {
namespace {

// Ten thousand designs of a few distinct plans each stay far below; a study over every planning
// input at once is cleared now and then rather than growing without bound.
constexpr size_t kMaxProfiles = 1 << 14;

StepProfileCache::Key key_of(const HardwareSpec& hw, const Precision& p, int64_t micro_batch) {
  StepProfileCache::Key k;
  std::memset(&k, 0, sizeof k);  // padding (none today) never differs
  k.rows = hw.array.rows, k.cols = hw.array.cols, k.count = hw.array.count;
  k.dataflow = static_cast<int64_t>(hw.array.dataflow), k.lanes = hw.vector.lanes, k.vcount = hw.vector.count;
  k.channels = hw.dram.channels, k.launch_batching = hw.runtime.launch_batching ? 1 : 0;
  k.micro_batch = micro_batch;
  k.matmul_bytes = p.matmul_bytes(), k.elementwise_bytes = p.elementwise_bytes();
  k.master_bytes = p.bytes.master, k.gradient_bytes = p.bytes.gradients;
  k.clock = hw.clock_hz, k.efficiency = hw.compute_efficiency;
  k.sram_cap = hw.sram.capacity_bytes, k.sram_bw = hw.sram.bandwidth_bytes_per_s;
  k.dram_bw = hw.dram.bandwidth_bytes_per_s, k.dram_lat = hw.dram.latency_s;
  k.bucket = hw.interconnect.bucket_bytes, k.first_bucket = hw.interconnect.first_bucket_bytes;
  k.launch_s = hw.runtime.kernel_launch_s, k.speed = p.matmul_speed;
  return k;
}

}  // namespace

// By the bits of every field: equal keys mean equal inputs (a double's -0 and 0 differ here,
// which costs a miss, never a wrong hit).
bool StepProfileCache::Key::operator==(const Key& o) const { return std::memcmp(this, &o, sizeof *this) == 0; }

size_t StepProfileCache::KeyHash::operator()(const Key& k) const {
  static_assert(sizeof(Key) % 8 == 0, "the key hashes as whole words");
  uint64_t words[sizeof(Key) / 8];
  std::memcpy(words, &k, sizeof k);
  uint64_t h = 0x9e3779b97f4a7c15ull;
  for (uint64_t w : words) h = (h ^ w) * 0xff51afd7ed558ccdull, h ^= h >> 29;
  return static_cast<size_t>(h);
}

StepProfile StepProfileCache::get(const HardwareSpec& hw, const Precision& precision, int64_t micro_batch,
                                  const std::function<StepProfile()>& make) {
  if (!tiled_cost_cache_on()) return make();
  const Key k = key_of(hw, precision, micro_batch);
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    const auto it = m_profiles.find(k);
    if (it != m_profiles.end()) return it->second;
  }
  // Profiled outside the lock: two threads may both profile one key, and get the same answer.
  StepProfile p = make();
  std::lock_guard<std::mutex> lock(m_mutex);
  if (m_profiles.size() >= kMaxProfiles) m_profiles.clear();
  m_profiles.emplace(k, p);
  return p;
}

MemoryNeed StepProfileCache::memory_need(const LoweredStep& step, const TensorBytes& bytes) {
  if (!tiled_cost_cache_on()) return plain_memory_need(step, bytes);
  const auto same = [&](const TensorBytes& b) {
    return b.weights == bytes.weights && b.gradients == bytes.gradients && b.master == bytes.master &&
           b.optimizer_state == bytes.optimizer_state && b.activations == bytes.activations &&
           b.separate_master == bytes.separate_master;
  };
  std::lock_guard<std::mutex> lock(m_mutex);
  for (const auto& n : m_needs)
    if (same(n.first)) return n.second;
  m_needs.emplace_back(bytes, plain_memory_need(step, bytes));
  return m_needs.back().second;
}

}  // namespace kp
