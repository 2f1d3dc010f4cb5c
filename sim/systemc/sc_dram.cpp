#include "sim/systemc/sc_dram.h"

#include <algorithm>
#include <string>

#include "sim/tile_plan.h"

namespace kp {

ScDram::ScDram(sc_core::sc_module_name name, const DramSpec& spec, ScTrace& trace)
    : sc_module(name),
      socket("socket"),
      m_spec(spec),
      m_burst_s(static_cast<double>(kDramBurstBytes) * static_cast<double>(spec.channels) / spec.bandwidth_bytes_per_s),
      m_latency(spec.latency_s, sc_core::SC_SEC),
      m_free(static_cast<size_t>(spec.channels), sc_core::SC_ZERO_TIME),
      m_trace(trace) {
  socket.register_b_transport(this, &ScDram::b_transport);
  for (int64_t c = 0; c < spec.channels; ++c) m_tracks.push_back(trace.add_track("DRAM channel " + std::to_string(c)));
}

void ScDram::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  const int64_t bytes = trans.get_data_length();
  const sc_core::sc_time issue = sc_core::sc_time_stamp() + delay;
  if (trans.is_write()) m_write_bytes += static_cast<double>(bytes);
  else m_read_bytes += static_cast<double>(bytes);
  const int64_t channels = m_spec.channels;
  const int64_t bursts = (bytes + kDramBurstBytes - 1) / kDramBurstBytes;
  sc_core::sc_time done = issue;
  for (int64_t c = 0; c < channels && c < bursts; ++c) {
    const int64_t mine = bursts / channels + (c < bursts % channels ? 1 : 0);
    sc_core::sc_time& free = m_free[static_cast<size_t>(c)];
    const sc_core::sc_time start = std::max(free, issue);
    free = start + sc_core::sc_time(static_cast<double>(mine) * m_burst_s, sc_core::SC_SEC);  // one rounding
    m_trace.span(m_tracks[static_cast<size_t>(c)], trans.is_write() ? "write" : "read", start.to_seconds(),
                 (free - start).to_seconds(), m_op);
    done = std::max(done, free);
  }
  if (bytes > 0) done += m_latency;
  delay = done - sc_core::sc_time_stamp();
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace kp
