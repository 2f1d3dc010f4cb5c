#pragma once
// Closed-form time of one op on one chip: the analytic twin of the SystemC chip model.
// Contract: GEMMs take SCALE-Sim v2's fold cycles (folds spread over `count` arrays, run back to
// back) bounded below by the DRAM and SRAM traffic time; elementwise work takes the larger of the
// vector-unit time and the memory time. No allocation: this is the sweep's inner loop.
#include <cstdint>

#include "core/hw_spec.h"
#include "core/lowering.h"

namespace kp {

struct OpCost {
  double seconds = 0;
  double compute_s = 0;      // array or vector time alone
  int64_t cycles = 0;        // array cycles (GEMM) or vector cycles
  double utilization = 0;    // MACs / (cycles * R * C * count), GEMM only
  double macs = 0, vector_ops = 0;
  double sram_bytes = 0, dram_bytes = 0;
};

class ChipAnalytic {
 public:
  ChipAnalytic(const HardwareSpec& hw, int64_t bytes_per_element);
  OpCost cost(const Op& op, int64_t batch) const;
  // a_unique_fraction: see Op (implicit GEMM: DRAM moves the tensor behind the im2col view once).
  OpCost gemm_cost(const GemmDims& g, double a_unique_fraction = 1.0) const;
  OpCost elementwise_cost(double elements, double ops_per_element, double tensors_moved,
                          int64_t bytes_per_element) const;
  const HardwareSpec& hw() const { return m_hw; }

 private:
  HardwareSpec m_hw;
  int64_t m_bytes;  // bytes per element on the array
};

}  // namespace kp
