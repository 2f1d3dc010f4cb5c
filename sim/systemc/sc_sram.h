#pragma once
// On-chip SRAM as a loosely-timed TLM-2.0 target (timing only). Contract: capacity, banks and
// bandwidth from SramSpec; an access of n bytes is interleaved word by word over all banks, each
// bank serving bandwidth / banks, so it takes n / bandwidth after its issue time; accesses are
// counted (bytes). The capacity is enforced on the tiles the executor places: a tile whose
// double-buffered footprint exceeds it is an internal error (std::logic_error), which holds the
// tiling (sim/tile_plan.h) to the capacity it was given.
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "core/hw_spec.h"

namespace kp {

class ScSram : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<ScSram> socket;  // the arrays and the vector units

  ScSram(sc_core::sc_module_name name, const SramSpec& spec);
  double bytes() const { return m_bytes; }
  void check_footprint(double bytes) const;

 private:
  void b_transport(int port, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);

  SramSpec m_spec;
  double m_bytes = 0;
};

}  // namespace kp
