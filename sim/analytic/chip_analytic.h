#pragma once
// Closed-form time of one op on one chip: the analytic twin of the SystemC chip executor
// (sim/systemc/chip_executor.h). Contract: both cut the op into the same tiles (sim/tile_plan.h:
// SRAM-sized GEMM tiles on the arrays, DRAM-streamed chunks on the vector units) with the same
// DRAM traffic; the twin times the double-buffered tile pipeline without events (tile_pipeline),
// so it equals the SystemC cycles wherever the SystemC DRAM model adds no contention. No
// allocation: this is the sweep's inner loop.
#include <cstdint>

#include "core/hw_spec.h"
#include "core/lowering.h"
#include "core/precision.h"

namespace kp {

struct OpCost {
  double seconds = 0;
  double compute_s = 0;      // the tiles' compute alone (array or vector unit, SRAM ports)
  double stall_s = 0;        // seconds - compute_s: DMA time not hidden behind compute
  int64_t cycles = 0;        // unit cycles (array folds or vector ops), without stalls
  int64_t total_cycles = 0, stall_cycles = 0;  // seconds and stall_s in clock cycles (rounded)
  double utilization = 0;    // MACs / (seconds * clock * R * C * count), GEMM only
  double macs = 0, vector_ops = 0;
  double sram_bytes = 0, dram_bytes = 0;
  double dram_read_bytes = 0, dram_write_bytes = 0;
  int64_t tiles = 0;
};

// Fills total_cycles and stall_cycles from seconds and stall_s.
void set_clock_cycles(OpCost& c, double clock_hz);

class ChipAnalytic {
 public:
  ChipAnalytic(const HardwareSpec& hw, const Precision& precision);
  OpCost cost(const Op& op, int64_t batch) const;
  // a_unique_fraction: see Op (implicit GEMM: DRAM moves the tensor behind the im2col view once).
  OpCost gemm_cost(const GemmDims& g, double a_unique_fraction = 1.0, double out_fraction = 1.0) const;
  OpCost elementwise_cost(double elements, double ops_per_element, double tensors_moved,
                          int64_t bytes_per_element) const;
  const HardwareSpec& hw() const { return m_hw; }
  // Bytes per element of an op's operands (core/precision.h): the products' type for GEMMs, the
  // master type for the optimizer's work (master weights and state), the activations' type for
  // every other elementwise op.
  int64_t op_bytes(const Op& op) const {
    if (op.phase == Phase::Update) return m_precision.bytes.master;
    return op.kind == OpKind::Gemm ? m_precision.matmul_bytes() : m_precision.elementwise_bytes();
  }
  // TilePlan::gemm's array_speed for an op (1 for the vector units' work).
  double op_speed(const Op& op) const { return op.kind == OpKind::Gemm ? m_precision.matmul_speed : 1.0; }
  const Precision& precision() const { return m_precision; }

 private:
  HardwareSpec m_hw;
  Precision m_precision;
};

}  // namespace kp
