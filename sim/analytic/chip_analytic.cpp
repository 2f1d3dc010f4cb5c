#include "sim/analytic/chip_analytic.h"

#include <algorithm>
#include <cmath>

#include "sim/fold_timing.h"

namespace kp {

ChipAnalytic::ChipAnalytic(const HardwareSpec& hw, int64_t bytes_per_element)
    : m_hw(hw), m_bytes(bytes_per_element) {}

OpCost ChipAnalytic::gemm_cost(const GemmDims& g, double a_unique_fraction) const {
  OpCost c;
  if (g.m == 0 || g.n == 0 || g.k == 0) return c;
  const SystolicArraySpec& a = m_hw.array;
  const FoldTiming ft = fold_timing(a.dataflow, a.rows, a.cols, GemmShape{g.m, g.n, g.k});
  // Independent folds are spread over the arrays; each array runs its folds back to back.
  const int64_t folds_per_array = (ft.folds + a.count - 1) / a.count;
  c.cycles = folds_per_array * ft.cycles_per_fold;
  c.macs = static_cast<double>(g.m) * g.n * g.k;
  c.compute_s = static_cast<double>(c.cycles) / (m_hw.clock_hz * m_hw.compute_efficiency);
  c.utilization = c.macs / (static_cast<double>(c.cycles) * a.rows * a.cols * a.count);
  // DRAM traffic of a blocked GEMM with SRAM capacity S (the classic tiling bound, e.g. Hong &
  // Kung 1981): every operand once when all fit, or when the smaller input stays resident in half
  // of S while the other streams; otherwise output tiles of t x t (t = sqrt(S / 2 / bytes)) and
  // A is re-read once per column of tiles, B once per row of tiles. Linear in the batch.
  const double bpe = static_cast<double>(m_bytes);
  const double a_b = static_cast<double>(g.m) * g.k * bpe * a_unique_fraction, b_b = static_cast<double>(g.k) * g.n * bpe,
               c_b = static_cast<double>(g.m) * g.n * bpe;
  const double cap = m_hw.sram.capacity_bytes;
  c.dram_bytes = a_b + b_b + c_b;
  if (c.dram_bytes > cap && std::min(a_b, b_b) > 0.5 * cap) {
    const double t = std::max(1.0, std::floor(std::sqrt(0.5 * cap / bpe)));
    c.dram_bytes = a_b * std::ceil(static_cast<double>(g.n) / t) + b_b * std::ceil(static_cast<double>(g.m) / t) + c_b;
  }
  // SRAM feeds the array: each fold reads its row and column operand tiles, writes its outputs.
  c.sram_bytes = static_cast<double>(g.m) * g.k * bpe * std::ceil(static_cast<double>(g.n) / a.cols) +
                 b_b * std::ceil(static_cast<double>(g.m) / a.rows) + c_b;
  const double dram_s = c.dram_bytes / m_hw.dram.bandwidth_bytes_per_s;
  const double sram_s = c.sram_bytes / m_hw.sram.bandwidth_bytes_per_s;
  c.seconds = std::max({c.compute_s, dram_s, sram_s});
  return c;
}

OpCost ChipAnalytic::elementwise_cost(double elements, double ops_per_element, double tensors_moved,
                                      int64_t bytes_per_element) const {
  OpCost c;
  c.vector_ops = elements * ops_per_element;
  const double lanes = static_cast<double>(m_hw.vector.lanes * m_hw.vector.count);
  c.cycles = static_cast<int64_t>(std::ceil(c.vector_ops / lanes));
  c.compute_s = static_cast<double>(c.cycles) / m_hw.clock_hz;
  const double bytes = elements * tensors_moved * static_cast<double>(bytes_per_element);
  // A tensor that fits on chip stays in SRAM; a larger one streams through DRAM.
  if (elements * bytes_per_element <= 0.5 * m_hw.sram.capacity_bytes) {
    c.sram_bytes = bytes;
  } else {
    c.dram_bytes = bytes;
  }
  const double mem_s = c.sram_bytes / m_hw.sram.bandwidth_bytes_per_s +
                       c.dram_bytes / m_hw.dram.bandwidth_bytes_per_s;
  c.seconds = std::max(c.compute_s, mem_s);
  return c;
}

OpCost ChipAnalytic::cost(const Op& op, int64_t batch) const {
  if (op.kind == OpKind::Gemm) return gemm_cost(op.gemm_at(batch), op.a_unique_fraction);
  // The optimizer keeps fp32 master weights and momentum whatever the array precision.
  const int64_t bpe = op.phase == Phase::Update ? 4 : m_bytes;
  return elementwise_cost(static_cast<double>(op.elements_at(batch)), op.ops_per_element,
                          op.tensors_moved, bpe);
}

}  // namespace kp
