#include "sim/systemc/sc_dma.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace kp {

ScDma::ScDma(sc_core::sc_module_name name, ScTrace& trace)
    : sc_module(name), dram("dram"), m_track(trace.add_track("DMA")), m_trace(trace) {}

sc_core::sc_time ScDma::issue(const sc_core::sc_time& start, tlm::tlm_command cmd, int64_t bytes) {
  // Tiles are bounded by the SRAM capacity, far below the payload's 32-bit length.
  if (bytes > std::numeric_limits<unsigned int>::max()) throw std::logic_error("ScDma: transfer above 4 GiB");
  tlm::tlm_generic_payload trans;
  trans.set_command(cmd);
  trans.set_address(0);
  trans.set_data_ptr(nullptr);
  trans.set_data_length(static_cast<unsigned int>(bytes));
  trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = start - sc_core::sc_time_stamp();
  dram->b_transport(trans, delay);
  if (trans.is_response_error()) throw std::logic_error("ScDma: DRAM transaction failed");
  return sc_core::sc_time_stamp() + delay;
}

sc_core::sc_time ScDma::transfer(const sc_core::sc_time& start, int64_t write_bytes, int64_t read_bytes, int64_t op) {
  sc_core::sc_time done = start;
  if (write_bytes > 0) done = std::max(done, issue(start, tlm::TLM_WRITE_COMMAND, write_bytes));
  if (read_bytes > 0) done = std::max(done, issue(start, tlm::TLM_READ_COMMAND, read_bytes));
  m_trace.span(m_track, write_bytes > 0 ? (read_bytes > 0 ? "write+read" : "write") : "read", start.to_seconds(),
               (done - start).to_seconds(), op);
  return done;
}

}  // namespace kp
