#include "sim/systemc/sc_compute_unit.h"

#include <algorithm>
#include <stdexcept>

namespace kp {

ScComputeUnit::ScComputeUnit(sc_core::sc_module_name name, const std::string& label, int64_t units, double clock_hz,
                             double efficiency, ScTrace& trace)
    : sc_module(name), sram("sram"), m_clock_hz(clock_hz), m_efficiency(efficiency), m_trace(trace) {
  for (int64_t u = 0; u < units; ++u) m_tracks.push_back(trace.add_track(label + " " + std::to_string(u)));
}

sc_core::sc_time ScComputeUnit::execute(const sc_core::sc_time& start, const TileStep& tile, int64_t op) {
  if (start < m_busy_until) throw std::logic_error("ScComputeUnit: a tile was issued to busy units");
  // SRAM traffic of the tile, in transactions below the 32-bit payload length.
  sc_core::sc_time sram_delay = start - sc_core::sc_time_stamp();
  tlm::tlm_generic_payload trans;
  constexpr double kMaxTransaction = 1 << 30;
  for (double left = tile.sram_bytes; left > 0; left -= kMaxTransaction) {
    trans.set_command(tlm::TLM_READ_COMMAND);
    trans.set_address(0);
    trans.set_data_ptr(nullptr);
    trans.set_data_length(static_cast<unsigned int>(std::min(left, kMaxTransaction)));
    trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sram->b_transport(trans, sram_delay);
    if (trans.is_response_error()) throw std::logic_error("ScComputeUnit: SRAM transaction failed");
  }
  const double unit_s = static_cast<double>(tile.unit_cycles) / (m_clock_hz * m_efficiency * m_share * tile.speed);
  m_unit_s += unit_s;
  // Split-K partial sums are added (tile.reduce_s) once the arrays and the SRAM ports are done.
  const sc_core::sc_time end = std::max(start + sc_core::sc_time(unit_s, sc_core::SC_SEC),
                                        sc_core::sc_time_stamp() + sram_delay) +
                               sc_core::sc_time(tile.reduce_s, sc_core::SC_SEC);
  const int64_t busy = std::min<int64_t>(tile.units_busy, static_cast<int64_t>(m_tracks.size()));
  for (int64_t u = 0; u < busy; ++u)
    m_trace.span(m_tracks[static_cast<size_t>(u)], "tile", start.to_seconds(), (end - start).to_seconds(), op);
  m_busy_until = end;
  return end;
}

}  // namespace kp
