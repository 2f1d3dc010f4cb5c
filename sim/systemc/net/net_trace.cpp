#include "sim/systemc/net/net_trace.h"

#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "core/atomic_file.h"
#include "sim/systemc/net/net_runner.h"
#include "sim/systemc/net/net_topology.h"
#include "sim/systemc/sc_trace.h"

namespace kp {

void append_net_trace(const std::string& path, const InterconnectSpec& ic, int64_t learners, const StepProfile& prof,
                      const std::vector<double>& bucket_start_s) {
  if (learners <= 1 || prof.buckets.empty()) return;
  if (bucket_start_s.size() != prof.buckets.size())
    throw std::logic_error("append_net_trace: one start time per bucket expected");
  std::vector<NetJob> jobs;
  for (const auto& bucket : prof.buckets) jobs.push_back(NetJob{ic, learners, bucket.second, false});
  std::vector<std::vector<NetSpan>> spans;
  run_net_sc_forked(jobs, &spans);

  const NetTopology topo(ic, learners);
  std::map<int32_t, int> track_of;  // link id -> track, in link order
  for (const auto& v : spans)
    for (const NetSpan& s : v) track_of.emplace(s.link, 0);
  ScTrace trace(true, 1, "interconnect");
  for (auto& [link, track] : track_of) track = trace.add_track(topo.link_name(link));
  std::vector<std::string> names;          // "bucket b step s"
  std::map<std::pair<size_t, int32_t>, int64_t> name_of;
  for (size_t b = 0; b < spans.size(); ++b)
    for (const NetSpan& s : spans[b]) {
      auto it = name_of.find({b, s.step});
      if (it == name_of.end()) {
        it = name_of.emplace(std::make_pair(b, s.step), static_cast<int64_t>(names.size())).first;
        names.push_back("bucket " + std::to_string(b) + " step " + std::to_string(s.step));
      }
      trace.span(track_of.at(s.link), "allreduce", bucket_start_s[b] + s.start_s, s.end_s - s.start_s, it->second);
    }

  std::string chip = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[]}";
  if (std::ifstream in{path}) {
    std::stringstream ss;
    ss << in.rdbuf();
    if (!ss.str().empty()) chip = ss.str();
  }
  write_file_atomic(path, merge_trace_json(chip, trace.json(names)));
}

}  // namespace kp
