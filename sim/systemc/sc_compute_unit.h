#pragma once
// A bank of identical compute units (the systolic arrays, or the vector units) executing tiles,
// loosely timed. Contract: execute() runs one tile from `start`: the units read and write their
// operands through the SRAM target (one transaction of the tile's SRAM bytes) while they compute
// unit_cycles / (clock * efficiency * tile.speed); the tile ends when both are done. Units are busy until then
// (a tile issued earlier is an internal error). One trace track per unit.
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sim/systemc/sc_trace.h"
#include "sim/tile_plan.h"

namespace kp {

class ScComputeUnit : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<ScComputeUnit> sram;

  ScComputeUnit(sc_core::sc_module_name name, const std::string& label, int64_t units, double clock_hz,
                double efficiency, ScTrace& trace);
  // Returns the tile's end time (absolute).
  sc_core::sc_time execute(const sc_core::sc_time& start, const TileStep& tile, int64_t op);
  double unit_seconds() const { return m_unit_s; }  // the units' own compute time so far
  // The fraction of the units left to the tiles issued from now on (a collective's kernels hold
  // the rest, interconnect.overlap); 1 by default.
  void set_share(double units_left) { m_share = units_left; }

 private:
  double m_clock_hz, m_efficiency, m_share = 1.0;
  sc_core::sc_time m_busy_until = sc_core::SC_ZERO_TIME;
  std::vector<int> m_tracks;
  ScTrace& m_trace;
  double m_unit_s = 0;
};

}  // namespace kp
