#pragma once
// The time of one synchronous data-parallel update, T_update(M, P): the interface both fidelities
// (analytic twin, SystemC) implement. Contract: simulate(M, P) runs every learner on ceil(M/P)
// samples (forward, backward), all-reduces the gradients in buckets that start as soon as backward
// has produced them (overlapping the rest of backward), then applies the optimizer step.
// With `layers == nullptr` it must not allocate (sweep hot path).
#include <cstdint>
#include <string>
#include <vector>

#include "core/layout_spec.h"
#include "core/lowering.h"

namespace kp {

struct UpdateBreakdown {
  double forward_s = 0, backward_s = 0, allreduce_s = 0, allreduce_exposed_s = 0, optimizer_s = 0;
  // Fixed costs (hardware `runtime:`): launch_wait_s is the part of forward, backward and optimizer
  // the chip waits for kernel launches (included in them); host_s and input_s add to the step.
  double launch_wait_s = 0, host_s = 0, input_s = 0;
  // Parallel layouts (sim/layout_update.h): pipeline fill and drain (stages idle), stage-to-stage
  // transfers, and tensor-parallel all-reduces (inside forward_s and backward_s).
  double pipeline_bubble_s = 0, p2p_s = 0, tp_comm_s = 0;
  // Clock under the board power limit over the nominal clock (models/time_model/power_model.h):
  // 1 when the chip stays within its TDP; forward, backward and optimizer already include it.
  double power_clock_scale = 1;
  double t_update_s = 0;
};

// Per-chip action counts for one update, the basis of energy.
struct ActionCounts {
  double macs = 0, vector_ops = 0, sram_bytes = 0, dram_bytes = 0, link_bytes = 0;
};

struct LayerRecord {
  std::string name;
  Phase phase = Phase::Forward;
  GemmDims gemm;          // zeros for elementwise work
  int64_t cycles = 0;     // the op's wall time in chip clock cycles (compute + stalls)
  int64_t compute_cycles = 0;  // array (fold) or vector-unit cycles at full efficiency, no stalls
  int64_t stall_cycles = 0;    // cycles waiting on DMA (exposed DRAM transfers)
  double utilization = 0;      // GEMM: MACs / (cycles * PEs)
  double seconds = 0;
  double sram_bytes = 0, dram_read_bytes = 0, dram_write_bytes = 0;
  double macs = 0, vector_ops = 0;
  int64_t tiles = 0;
};

// Device memory of one chip by tensor class (sim/memory_footprint.h), bytes.
struct MemoryParts {
  double weights = 0, gradients = 0, optimizer = 0, activations = 0, workspace = 0, capacity = 0;
  double total() const { return weights + gradients + optimizer + activations + workspace; }
};

struct UpdateResult {
  int64_t per_learner_batch = 0;
  Layout layout;            // the parallel layout timed (plain data parallelism: dp = P)
  MemoryParts memory;       // of the chip with the largest footprint
  bool fits = true;         // false: no micro-batch of this layout fits device memory
  int64_t accumulation_steps = 1;  // micro-steps per update when the batch does not fit memory
  int64_t kernels = 0;             // kernels launched per update (every op of every micro-step)
  UpdateBreakdown breakdown;
  ActionCounts actions;
  double energy_j = 0;    // one update, all learners
};

class UpdateModel {
 public:
  virtual ~UpdateModel() = default;
  virtual const char* fidelity() const = 0;
  virtual UpdateResult simulate(int64_t batch, int64_t learners,
                                std::vector<LayerRecord>* layers = nullptr) const = 0;
};

}  // namespace kp
