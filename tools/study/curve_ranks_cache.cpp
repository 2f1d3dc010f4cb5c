// measure_stale_curve_caches() (curve_ranks.h): a study's stale measured step curves, shared by
// the ranks. Rank 0 alone decides (it holds CACHE.lock, as cached_or_measured_curve() does, so
// another process measuring the same cache is waited for) and tells the others.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <ostream>

#include "core/config_doc.h"
#include "tools/study/curve_ranks.h"

namespace kp {
namespace {

// Whether the cache at the workload's step_curve.path carries this measurement's fingerprint.
bool cache_current(const std::string& path, const std::string& fingerprint) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return false;
  const auto prov = read_curve_provenance(path);
  const auto it = prov.find("fingerprint");
  return it != prov.end() && it->second == fingerprint;
}

}  // namespace

void measure_stale_curve_caches(Transport& t, const std::vector<std::string>& workload_files, int jobs,
                                std::ostream& log) {
  if (t.size() < 2) return;
  for (const std::string& file : workload_files) {
    WorkloadSpec w;
    ResolvedNetwork net;
    try {
      w = parse_workload(ConfigDoc::load(file));
      if (w.step_curve.source != StepCurveSource::Measure) continue;
      net = resolve_network(w.network);
    } catch (const std::exception&) {
      continue;  // the study's loader reports it, on every rank alike
    }
    const CurveProtocol protocol = curve_protocol(w.step_curve.protocol, w.source_file);
    const CurveSearchSpec s = curve_search_spec(w, protocol, w.step_curve.seed, jobs);
    const std::string fp = curve_fingerprint(w, net, s, protocol.name);
    const std::string& path = w.step_curve.path;
    struct Lock {  // held by rank 0 from its decision to the written cache
      int fd = -1;
      ~Lock() {
        if (fd >= 0) ::close(fd);
      }
    } lock;
    const char* no_measure = std::getenv("KP_NO_CURVE_MEASURE");
    std::string verdict = "current";
    if (t.rank() == 0 && !cache_current(path, fp) && !(no_measure && *no_measure)) {
      lock.fd = ::open((path + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
      if (lock.fd >= 0 && ::flock(lock.fd, LOCK_EX) == 0 && !cache_current(path, fp)) verdict = "measure";
    }
    verdict = t.broadcast_text(verdict);
    if (verdict == "measure") {
      Dataset data;
      bool fits = true;
      try {
        data = load_workload_dataset(w, "", s.seed);
        for (int64_t b : s.batches) fits = fits && b <= data.train.n;
      } catch (const ConfigError&) {
        fits = false;  // unreadable data: the loader's error names it
      }
      if (fits) {
        if (t.rank() == 0)
          log << "step curve " << path << ": stale or missing: measuring it on " << t.size()
              << " ranks (protocol " << protocol.name << ")\n";
        const CurveRunInfo info{"kneepoint (step_curve.source: measure of " + w.source_file + ")", protocol.name, fp,
                                w.name, w.source_file};
        measure_curve_on_ranks(t, net, data, s, info, path, true, true, log);
      }
    }
  }
}

}  // namespace kp
