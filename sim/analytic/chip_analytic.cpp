#include "sim/analytic/chip_analytic.h"

#include <cmath>

#include "sim/tiled_cost_cache.h"

namespace kp {
namespace {

OpCost from_tiles(const TiledCost& t) {
  OpCost c;
  c.seconds = t.seconds, c.compute_s = t.compute_s, c.stall_s = t.stall_s;
  c.cycles = t.unit_cycles;
  c.macs = t.macs, c.vector_ops = t.vector_ops, c.sram_bytes = t.sram_bytes;
  c.dram_read_bytes = t.read_bytes, c.dram_write_bytes = t.write_bytes;
  c.dram_bytes = t.read_bytes + t.write_bytes;
  c.tiles = t.tiles;
  return c;
}

}  // namespace

void set_clock_cycles(OpCost& c, double clock_hz) {
  c.total_cycles = std::llround(c.seconds * clock_hz);
  c.stall_cycles = std::llround(c.stall_s * clock_hz);
}

ChipAnalytic::ChipAnalytic(const HardwareSpec& hw, const Precision& precision) : m_hw(hw), m_precision(precision) {}

OpCost ChipAnalytic::gemm_cost(const GemmDims& g, double a_unique_fraction, double out_fraction) const {
  if (g.m == 0 || g.n == 0 || g.k == 0 || g.groups == 0) return OpCost{};
  OpCost c = from_tiles(cached_gemm_tiled_cost(m_hw, g, a_unique_fraction, m_precision.matmul_bytes(),
                                                     out_fraction, m_precision.matmul_speed));
  const SystolicArraySpec& a = m_hw.array;
  c.utilization = c.macs / (c.seconds * m_hw.clock_hz * static_cast<double>(a.rows * a.cols * a.count));
  set_clock_cycles(c, m_hw.clock_hz);
  return c;
}

OpCost ChipAnalytic::elementwise_cost(double elements, double ops_per_element, double tensors_moved,
                                      int64_t bytes_per_element) const {
  OpCost c = from_tiles(
      cached_elementwise_tiled_cost(m_hw, elements, ops_per_element, tensors_moved, bytes_per_element));
  set_clock_cycles(c, m_hw.clock_hz);
  return c;
}

OpCost ChipAnalytic::cost(const Op& op, int64_t batch) const {
  if (op.kind == OpKind::Gemm) return gemm_cost(op.gemm_at(batch), op.a_unique_fraction, op.out_fraction);
  return elementwise_cost(static_cast<double>(op.elements_at(batch)), op.ops_per_element, op.tensors_moved,
                          op_bytes(op));
}

}  // namespace kp
