// measure_stale_curve_caches() (curve_ranks.h): a study's stale measured step curves, shared by
// the ranks. Rank 0 alone decides (it holds CACHE.lock, as cached_or_measured_curve() does, so
// another process measuring the same cache is waited for) and tells the others.
#include <optional>
#include <ostream>

#include "core/config_doc.h"
#include "models/step_curve/measure/curve_cache_lock.h"
#include "tools/study/curve_ranks.h"

namespace kp {

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
    // Rank 0 holds the lock from its decision to the written cache; it never throws before the
    // broadcast, so no rank is left waiting.
    std::optional<CurveCacheLock> lock;
    std::string verdict = "current";
    if (t.rank() == 0 && !curve_cache_current(path, fp) && !curve_measuring_forbidden()) {
      lock.emplace(path);
      if (lock->held() && !curve_cache_current(path, fp)) verdict = "measure";
    }
    verdict = t.broadcast_text(verdict);
    if (verdict == "measure") {
      Dataset data;
      bool fits = true;
      try {
        data = load_workload_dataset(w, "", s.seed);
        check_batches_fit(s, data, w.source_file, "");
      } catch (const ConfigError&) {
        fits = false;  // unreadable data or batches too large: the study's loader reports it
      }
      if (fits) {
        if (t.rank() == 0)
          log << "step curve " << path << ": stale or missing: measuring it on " << t.size()
              << " ranks (protocol " << protocol.name << ")\n";
        measure_curve_on_ranks(t, net, data, s, workload_curve_info(w, protocol.name, fp), path, true,
                               true, log);
      }
    }
  }
}

}  // namespace kp
