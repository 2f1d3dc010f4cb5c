#pragma once
// Chrome / Perfetto trace-event timeline of a SystemC chip run (the JSON "traceEvents" format,
// complete events "ph":"X", times in microseconds). Contract: one track (tid) per named resource,
// tracks listed in the order they were added; events are kept in memory only while enabled.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kp {

class ScTrace {
 public:
  // `pid` and `process` name the group of tracks (e.g. 0 "chip", 1 "interconnect").
  explicit ScTrace(bool enabled, int pid = 0, std::string process = "")
      : m_enabled(enabled), m_pid(pid), m_process(std::move(process)) {}
  bool enabled() const { return m_enabled; }
  int add_track(const std::string& name);  // returns the track id
  // A busy span on `track` from start_s for dur_s seconds, labelled with the op index.
  void span(int track, const char* what, double start_s, double dur_s, int64_t op) {
    if (m_enabled && dur_s > 0) m_events.push_back(Event{track, what, start_s, dur_s, op});
  }
  // The JSON document; op_names label the ops (args.op).
  std::string json(const std::vector<std::string>& op_names) const;

 private:
  struct Event {
    int track;
    const char* what;  // a string literal
    double start_s, dur_s;
    int64_t op;
  };
  bool m_enabled;
  int m_pid;
  std::string m_process;
  std::vector<std::string> m_tracks;
  std::vector<Event> m_events;
};

// One timeline from two trace documents (json() outputs): b's events after a's.
std::string merge_trace_json(const std::string& a, const std::string& b);

}  // namespace kp
