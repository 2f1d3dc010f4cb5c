#include "sim/systemc/sc_pool.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "sim/systemc/sc_fork.h"

namespace kp {

std::vector<std::vector<ScLayerResult>> run_systolic_sc_pool(const std::vector<ScJob>& jobs, int workers) {
  if (jobs.empty()) return {};
  const size_t n = std::min(jobs.size(), static_cast<size_t>(std::max(workers, 1)));
  // Each worker elaborates its share once and sends, per job, the layer count then (total, stall,
  // folds) per layer; cycle counts stay exact in doubles (< 2^53).
  const auto flat = run_forked_pool(static_cast<int>(n), [&](int w) {
    std::vector<ScJob> mine;
    for (size_t j = static_cast<size_t>(w); j < jobs.size(); j += n) mine.push_back(jobs[j]);
    std::vector<double> v;
    for (const auto& layers : run_systolic_sc(mine)) {
      v.push_back(static_cast<double>(layers.size()));
      for (const ScLayerResult& r : layers) {
        v.push_back(static_cast<double>(r.total_cycles));
        v.push_back(static_cast<double>(r.stall_cycles));
        v.push_back(static_cast<double>(r.folds));
      }
    }
    return v;
  });
  std::vector<std::vector<ScLayerResult>> out(jobs.size());
  for (size_t w = 0; w < n; ++w) {
    const std::vector<double>& v = flat[w];
    size_t at = 0;
    for (size_t j = w; j < jobs.size(); j += n) {
      if (at >= v.size()) throw std::runtime_error("run_systolic_sc_pool: short result from a worker");
      const size_t layers = static_cast<size_t>(v[at++]);
      if (at + 3 * layers > v.size()) throw std::runtime_error("run_systolic_sc_pool: short result from a worker");
      for (size_t l = 0; l < layers; ++l, at += 3)
        out[j].push_back(ScLayerResult{static_cast<int64_t>(v[at]), static_cast<int64_t>(v[at + 1]),
                                       static_cast<int64_t>(v[at + 2])});
    }
  }
  return out;
}

}  // namespace kp
