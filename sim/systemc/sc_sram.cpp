#include "sim/systemc/sc_sram.h"

#include <stdexcept>
#include <string>

namespace kp {

ScSram::ScSram(sc_core::sc_module_name name, const SramSpec& spec) : sc_module(name), socket("socket"), m_spec(spec) {
  socket.register_b_transport(this, &ScSram::b_transport);
}

void ScSram::check_footprint(double bytes) const {
  if (bytes > m_spec.capacity_bytes)
    throw std::logic_error("ScSram: a tile needs " + std::to_string(bytes) + " B, capacity " +
                           std::to_string(m_spec.capacity_bytes) + " B");
}

void ScSram::b_transport(int, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  const double bytes = static_cast<double>(trans.get_data_length());
  m_bytes += bytes;
  // Banks in parallel, each bandwidth / banks: the access takes bytes / bandwidth.
  delay += sc_core::sc_time(bytes / m_spec.bandwidth_bytes_per_s, sc_core::SC_SEC);
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace kp
