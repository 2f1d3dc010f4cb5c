#pragma once
// The SystemC fidelity of the data-parallel update (contract in sim/update_model.h). Every op of the
// lowered step (GEMMs on the arrays, elementwise and optimizer work on the vector units) runs as
// tile transactions on the SystemC chip (chip_executor.h) in a forked worker, so that simulate() may
// be called any number of times from a process that never elaborates; each gradient bucket's
// all-reduce runs on the SystemC interconnect (sim/systemc/net/), starting when backward has
// produced the bucket (step_profile.h). The fidelities differ wherever links are shared
// (net_contention_test.cpp); the chip model and the twin walk the same tiles (sim/tile_plan.h).
// With a trace file, the timeline holds the chip's tracks and every link of the interconnect
// (net_trace.h).
//
// Hardware mapping: HardwareSpec is the chip as is (arrays, vector units, SRAM, DRAM channels and
// latency); operand widths follow the workload's precision (ChipAnalytic::op_bytes).
// A per-learner batch that does not fit device memory runs as micro-steps (accumulation_steps).
//
// Overlap is not free (interconnect.overlap, issue 35): with P > 1 the ops run a second time on the
// SystemC chip beside the buckets' all-reduces (ScCollective in chip_executor.h): the collective's
// kernels hold their units and its traffic queues on the same DRAM channels as the tiles' DMA.
// The twin's closed form (step_profile.h) is the fluid limit of that. Approximations: the units'
// share is taken per tile (a collective that ends inside a tile frees the units at the next one),
// a recurrence's steps (Op::serial) run once in the executor's timeline, and with gradient
// accumulation the closed form is used instead (only the last micro-step overlaps).
#include <cstdint>
#include <string>
#include <vector>

#include "core/hw_spec.h"
#include "core/lowering.h"
#include "sim/analytic/chip_analytic.h"
#include "sim/step_profile.h"
#include "sim/systemc/chip_executor.h"
#include "sim/update_model.h"

namespace kp {

// Seconds of each bucket of `prof` on the SystemC interconnect of `ic` with P learners (forked worker).
std::vector<double> bucket_allreduce_s(const InterconnectSpec& ic, int64_t learners, const StepProfile& prof);

class SystemcUpdate : public UpdateModel {
 public:
  SystemcUpdate(const HardwareSpec& hw, const LoweredStep& step, const Precision& precision);
  const char* fidelity() const override { return "systemc"; }
  UpdateResult simulate(int64_t batch, int64_t learners,
                        std::vector<LayerRecord>* layers = nullptr) const override;

  // One cost per op of the step at per-learner batch m (at its micro-step's batch when m needs
  // gradient accumulation), from one SystemC run.
  std::vector<OpCost> op_costs(int64_t per_learner_batch) const;
  // The same in halves, so a caller can run many per-learner batches (or designs) in one worker
  // pool (run_chip_sc_pool): the SystemC run of batch m, and the op costs from its results.
  ScChipRun chip_run(int64_t per_learner_batch) const;
  // The SystemC run of every op at exactly `micro` samples (no accumulation rule applied).
  ScChipRun chip_run_at(int64_t micro) const;
  std::vector<OpCost> op_costs_from(const std::vector<ScOpResult>& results) const;
  // simulate() with the op costs of op_costs(ceil(batch / learners)) given.
  UpdateResult simulate_with(const std::vector<OpCost>& costs, int64_t batch, int64_t learners,
                             std::vector<LayerRecord>* layers = nullptr) const;
  // The kernel's global quantum (results must not depend on it) and an optional Chrome trace file
  // written by the next simulate() / op_costs().
  void set_quantum_s(double q) { m_quantum_s = q; }
  void set_trace_file(const std::string& path) { m_trace_path = path; }

 private:
  int64_t micro_batch(int64_t per_learner_batch) const;
  StepProfile profile_of(const std::vector<OpCost>& costs, int64_t m, std::vector<LayerRecord>* layers) const;
  // The op costs of micro-step m run beside the buckets' all-reduces of `prof` (ScCollective):
  // interconnect.overlap's units held and its DRAM traffic on the chip's channels.
  std::vector<OpCost> shared_op_costs(const StepProfile& prof, const std::vector<double>& allreduce, int64_t m,
                                      int64_t learners) const;
  HardwareSpec m_hw;
  LoweredStep m_step;
  ChipAnalytic m_chip;
  int64_t m_bytes;
  MemoryNeed m_need;
  double m_quantum_s = 1e-6;
  std::string m_trace_path;
};

}  // namespace kp
