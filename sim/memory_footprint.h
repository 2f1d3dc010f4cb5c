#pragma once
// Device memory of one chip under a layout, by tensor class. Contract (Rajbhandari et al. 2020,
// section 3.1, for mixed-precision Adam: 2 + 2 + 12 = 16 bytes per parameter):
//   weights      params x weight bytes, / dp under ZeRO-3
//   gradients    params x gradient bytes, / dp under ZeRO-2 and -3
//   optimizer    params x (master copy + state tensors x state bytes), / dp under ZeRO-1..3
//   activations  saved elements per sample x micro-batch x micro-batches in flight x activation
//                bytes (1F1B: stage s of p keeps min(m, p - s); GPipe: all m; no pipeline: 1)
//   workspace    the largest op output of one micro-batch, plus under ZeRO-3 two layers' gathered
//                weights (the one in use and the prefetched next)
// Widths follow the workload's precision (core/precision.h TensorBytes): the master copy counts
// only where it is separate from the weights the products read.
#include <cstdint>
#include <string>

#include "core/layout_spec.h"
#include "core/precision.h"
#include "core/shard_step.h"
#include "sim/update_model.h"

namespace kp {

struct Footprint {
  double weights_bytes = 0, gradients_bytes = 0, optimizer_bytes = 0, activations_bytes = 0, workspace_bytes = 0;
  double capacity_bytes = 0;
  double total_bytes() const {
    return weights_bytes + gradients_bytes + optimizer_bytes + activations_bytes + workspace_bytes;
  }
  bool fits() const { return total_bytes() <= capacity_bytes; }
  // "71.3 GiB (optimizer 48.0 GiB, weights 16.0 GiB, ...) > capacity 80 GiB": largest parts first.
  std::string describe() const;
};

// Plain data parallelism's need, for the accumulation rule (step_profile.h): bytes that do not
// depend on the batch, and bytes per sample of one micro-step.
struct MemoryNeed {
  double fixed_bytes = 0, per_sample_bytes = 0;
  Footprint at(int64_t micro_batch, double capacity_bytes) const;  // parts: see footprint_of()
  Footprint parts_fixed, parts_per_sample;
};
MemoryNeed plain_memory_need(const LoweredStep& step, const TensorBytes& bytes);

MemoryParts memory_parts(const Footprint& f);

Footprint stage_footprint(const StageStep& stage, int stage_index, const Layout& layout, const TensorBytes& bytes,
                          int64_t micro_batch, int64_t micro_batches, double capacity_bytes);

}  // namespace kp
