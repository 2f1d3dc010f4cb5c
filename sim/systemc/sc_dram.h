#pragma once
// Off-chip DRAM/HBM as a loosely-timed TLM-2.0 target (timing only: payloads carry a length, no
// data). Contract: a transaction of n bytes issued at sc_time_stamp() + delay is cut into
// kDramBurstBytes bursts interleaved over the channels from channel 0 (tile buffers are
// channel-aligned); each channel serves its bursts back to back at bandwidth / channels after it is
// free; the transaction completes when its last burst is done plus the access latency, and the
// delay is returned annotated to that time. Channel state is kept in absolute time, so results do
// not depend on the quantum or on when the initiator synchronises. Counts bytes read and written.
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <vector>

#include "core/hw_spec.h"
#include "sim/systemc/sc_trace.h"

namespace kp {

class ScDram : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<ScDram> socket;

  ScDram(sc_core::sc_module_name name, const DramSpec& spec, ScTrace& trace);
  double read_bytes() const { return m_read_bytes; }
  double write_bytes() const { return m_write_bytes; }
  void set_op(int64_t op) { m_op = op; }  // labels trace spans

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);

  DramSpec m_spec;
  double m_burst_s;  // one burst on one channel
  sc_core::sc_time m_latency;
  std::vector<sc_core::sc_time> m_free;  // per channel: when it is next idle
  std::vector<int> m_tracks;
  ScTrace& m_trace;
  double m_read_bytes = 0, m_write_bytes = 0;
  int64_t m_op = -1;
};

}  // namespace kp
