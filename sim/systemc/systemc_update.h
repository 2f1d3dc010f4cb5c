#pragma once
// The SystemC fidelity of the data-parallel update (contract in sim/update_model.h). Every GEMM of
// the lowered step is timed on the SystemC systolic-array model (systolic_sc.h), run in a forked
// worker (sc_pool.h) so that simulate() may be called any number of times from a process that never
// elaborates; elementwise work and the optimizer take the analytic twin's formulas (ChipAnalytic);
// each gradient bucket's all-reduce runs on the SystemC interconnect (sim/systemc/net/), starting
// when backward has produced the bucket (step_profile.h). The fidelities differ in GEMM timing and
// wherever links are shared (net_contention_test.cpp).
//
// Hardware mapping from HardwareSpec to the SystemC chip:
//   rows, cols, count (arrays), dataflow      = hw.array
//   word                                      = hw.array.bytes_per_element bytes
//   DRAM words per cycle (per interface)      = floor(dram.bandwidth / clock / bytes_per_element), >= 1
//     (SCALE-Sim's convention: the ifmap, filter and ofmap interfaces each get that rate)
//   ifmap / filter / ofmap SRAM words         = sram.capacity / 3 / bytes_per_element each
//   GEMM seconds = max(SystemC cycles / (clock * compute_efficiency), SRAM-port time of the twin):
//     DRAM is modelled by the simulated DMA stalls; SRAM port bandwidth is not simulated yet.
#include <cstdint>
#include <vector>

#include "core/hw_spec.h"
#include "core/lowering.h"
#include "sim/analytic/chip_analytic.h"
#include "sim/analytic/step_profile.h"
#include "sim/systemc/systolic_sc.h"
#include "sim/update_model.h"

namespace kp {

// Seconds of each bucket of `prof` on the SystemC interconnect of `ic` with P learners (forked worker).
std::vector<double> bucket_allreduce_s(const InterconnectSpec& ic, int64_t learners, const StepProfile& prof);

class SystemcUpdate : public UpdateModel {
 public:
  SystemcUpdate(const HardwareSpec& hw, const LoweredStep& step, int64_t bytes_per_element);
  const char* fidelity() const override { return "systemc"; }
  UpdateResult simulate(int64_t batch, int64_t learners,
                        std::vector<LayerRecord>* layers = nullptr) const override;

  // One result per op of the step at per-learner batch m, or at its micro-step's batch when m needs
  // gradient accumulation (zeros for elementwise and empty GEMMs);
  // a GEMM takes total_cycles + 1 cycles (SCALE-Sim reports the last cycle's index).
  std::vector<ScLayerResult> gemm_results(int64_t per_learner_batch) const;
  // The same in two halves, so a caller can run many per-learner batches (or designs) in one
  // worker pool (run_systolic_sc_pool): the pool job of batch m with the op index of each of its
  // layers, and the per-op results (as gemm_results) from that job's layer results.
  ScJob gemm_job(int64_t per_learner_batch, std::vector<size_t>& op_of) const;
  std::vector<ScLayerResult> per_op_results(const std::vector<ScLayerResult>& job_result,
                                            const std::vector<size_t>& op_of) const;
  // simulate() with the GEMM results of gemm_results(ceil(batch / learners)) given.
  UpdateResult simulate_with(const std::vector<ScLayerResult>& gemm_results, int64_t batch, int64_t learners,
                             std::vector<LayerRecord>* layers = nullptr) const;
  const ScChipConfig& chip() const { return m_chip_config; }

 private:
  int64_t micro_batch(int64_t per_learner_batch) const;
  HardwareSpec m_hw;
  LoweredStep m_step;
  ChipAnalytic m_chip;
  ScChipConfig m_chip_config;
  int64_t m_bytes;
};

}  // namespace kp
