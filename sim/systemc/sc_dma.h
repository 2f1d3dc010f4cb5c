#pragma once
// The chip's DMA engine: moves tile operands between DRAM and SRAM as loosely-timed TLM-2.0
// transactions on its initiator socket (bound to ScDram). Contract: transfer() issues one batch at
// `start` (the outputs to write back first, then the operands to read, each one transaction) and
// returns when the whole batch is done; the executor calls it for the next tile while the current
// one computes, which is where fetch and compute overlap. One trace track.
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <cstdint>

#include "sim/systemc/sc_trace.h"

namespace kp {

class ScDma : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<ScDma> dram;

  ScDma(sc_core::sc_module_name name, ScTrace& trace);
  sc_core::sc_time transfer(const sc_core::sc_time& start, int64_t write_bytes, int64_t read_bytes, int64_t op);

 private:
  sc_core::sc_time issue(const sc_core::sc_time& start, tlm::tlm_command cmd, int64_t bytes);

  int m_track;
  ScTrace& m_trace;
};

}  // namespace kp
