#include "sim/systemc/sc_trace.h"

#include <stdexcept>

#include "core/json_writer.h"

namespace kp {

int ScTrace::add_track(const std::string& name) {
  m_tracks.push_back(name);
  return static_cast<int>(m_tracks.size()) - 1;
}

std::string ScTrace::json(const std::vector<std::string>& op_names) const {
  JsonWriter j;
  const auto pid = static_cast<int64_t>(m_pid);
  j.begin_object().key("displayTimeUnit").value("ns").key("traceEvents").begin_array();
  if (!m_process.empty()) {
    j.begin_object().key("name").value("process_name").key("ph").value("M").key("pid").value(pid);
    j.key("args").begin_object().key("name").value(m_process).end_object().end_object();
  }
  for (size_t t = 0; t < m_tracks.size(); ++t) {
    j.begin_object().key("name").value("thread_name").key("ph").value("M").key("pid").value(pid);
    j.key("tid").value(static_cast<int64_t>(t)).key("args").begin_object().key("name").value(m_tracks[t]);
    j.end_object().end_object();
  }
  for (const Event& e : m_events) {
    j.begin_object().key("name").value(e.what).key("ph").value("X").key("pid").value(pid);
    j.key("tid").value(static_cast<int64_t>(e.track));
    j.key("ts").value(e.start_s * 1e6).key("dur").value(e.dur_s * 1e6);
    j.key("args").begin_object().key("op").value(
        e.op >= 0 && static_cast<size_t>(e.op) < op_names.size() ? op_names[static_cast<size_t>(e.op)] : std::string());
    j.end_object().end_object();
  }
  j.end_array().end_object();
  return j.str();
}

std::string merge_trace_json(const std::string& a, const std::string& b) {
  // Both are {"displayTimeUnit":"ns","traceEvents":[...]}: splice b's array into a's.
  const size_t a_end = a.rfind(']'), b_begin = b.find('['), b_end = b.rfind(']');
  if (a_end == std::string::npos || b_begin == std::string::npos || b_end == std::string::npos || b_end < b_begin)
    throw std::logic_error("merge_trace_json: not a trace document");
  const std::string events = b.substr(b_begin + 1, b_end - b_begin - 1);
  if (events.empty()) return a;
  const bool a_empty = a.find_last_not_of(" \n", a_end - 1) == a.rfind('[', a_end);
  return a.substr(0, a_end) + (a_empty ? "" : ",") + events + a.substr(a_end);
}

}  // namespace kp
