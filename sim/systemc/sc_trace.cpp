#include "sim/systemc/sc_trace.h"

#include "core/json_writer.h"

namespace kp {

int ScTrace::add_track(const std::string& name) {
  m_tracks.push_back(name);
  return static_cast<int>(m_tracks.size()) - 1;
}

std::string ScTrace::json(const std::vector<std::string>& op_names) const {
  JsonWriter j;
  j.begin_object().key("displayTimeUnit").value("ns").key("traceEvents").begin_array();
  for (size_t t = 0; t < m_tracks.size(); ++t) {
    j.begin_object().key("name").value("thread_name").key("ph").value("M").key("pid").value(int64_t{0});
    j.key("tid").value(static_cast<int64_t>(t)).key("args").begin_object().key("name").value(m_tracks[t]);
    j.end_object().end_object();
  }
  for (const Event& e : m_events) {
    j.begin_object().key("name").value(e.what).key("ph").value("X").key("pid").value(int64_t{0});
    j.key("tid").value(static_cast<int64_t>(e.track));
    j.key("ts").value(e.start_s * 1e6).key("dur").value(e.dur_s * 1e6);
    j.key("args").begin_object().key("op").value(
        e.op >= 0 && static_cast<size_t>(e.op) < op_names.size() ? op_names[static_cast<size_t>(e.op)] : std::string());
    j.end_object().end_object();
  }
  j.end_array().end_object();
  return j.str();
}

}  // namespace kp
