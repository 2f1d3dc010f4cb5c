#include "sim/memory_footprint.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <utility>

namespace kp {

namespace {

std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

}  // namespace

std::string Footprint::describe() const {
  std::array<std::pair<double, const char*>, 5> parts{{{weights_bytes, "weights"},
                                                      {gradients_bytes, "gradients"},
                                                      {optimizer_bytes, "optimizer state"},
                                                      {activations_bytes, "activations"},
                                                      {workspace_bytes, "workspace"}}};
  std::stable_sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string s = gib(total_bytes()) + " (";
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? ", " : "") + std::string(parts[i].second) + " " + gib(parts[i].first);
  return s + ")";
}

Footprint stage_footprint(const StageStep& stage, int stage_index, const Layout& layout, const TensorBytes& bytes,
                          int64_t micro_batch, int64_t micro_batches, double capacity_bytes) {
  Footprint f;
  f.capacity_bytes = capacity_bytes;
  const double params = static_cast<double>(stage.step.params);
  const double dp = static_cast<double>(std::max<int64_t>(1, layout.dp));
  const double weight = static_cast<double>(bytes.weights), act = static_cast<double>(bytes.activations);
  const double state = (bytes.separate_master ? static_cast<double>(bytes.master) : 0.0) +
                       static_cast<double>(stage.step.optimizer_state_tensors) * static_cast<double>(bytes.optimizer_state);
  f.weights_bytes = params * weight / (layout.zero >= 3 ? dp : 1.0);
  f.gradients_bytes = params * static_cast<double>(bytes.gradients) / (layout.zero >= 2 ? dp : 1.0);
  f.optimizer_bytes = params * state / (layout.zero >= 1 ? dp : 1.0);
  int64_t in_flight = 1;
  if (layout.pp > 1)
    in_flight = layout.schedule == PipeSchedule::GPipe ? micro_batches
                                                       : std::min<int64_t>(micro_batches, layout.pp - stage_index);
  const double mb = static_cast<double>(micro_batch);
  f.activations_bytes = static_cast<double>(stage.saved_elements) * mb * static_cast<double>(in_flight) * act;
  f.workspace_bytes = static_cast<double>(stage.largest_op_elements) * mb * act;
  if (layout.zero >= 3) f.workspace_bytes += 2.0 * static_cast<double>(stage.largest_layer_params) * weight;
  return f;
}

MemoryParts memory_parts(const Footprint& f) {
  return {f.weights_bytes, f.gradients_bytes, f.optimizer_bytes, f.activations_bytes, f.workspace_bytes,
          f.capacity_bytes};
}

Footprint MemoryNeed::at(int64_t micro_batch, double capacity_bytes) const {
  Footprint f = parts_fixed;
  const double u = static_cast<double>(micro_batch);
  f.activations_bytes += u * parts_per_sample.activations_bytes;
  f.workspace_bytes += u * parts_per_sample.workspace_bytes;
  f.capacity_bytes = capacity_bytes;
  return f;
}

MemoryNeed plain_memory_need(const LoweredStep& step, const TensorBytes& tb) {
  const StageStep st = shard_step(step, 1, 1, Recompute::None, false).front();
  Layout plain;
  plain.dp = 1;
  MemoryNeed n;
  n.parts_fixed = stage_footprint(st, 0, plain, tb, 0, 1, 0);
  const Footprint one = stage_footprint(st, 0, plain, tb, 1, 1, 0);
  n.parts_per_sample.activations_bytes = one.activations_bytes;
  n.parts_per_sample.workspace_bytes = one.workspace_bytes;
  n.fixed_bytes = n.parts_fixed.total_bytes();
  n.per_sample_bytes = one.total_bytes() - n.fixed_bytes;
  return n;
}

}  // namespace kp
