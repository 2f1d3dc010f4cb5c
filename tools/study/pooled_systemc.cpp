#include "tools/study/pooled_systemc.h"

#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <set>

#include "sim/systemc/chip_executor.h"

namespace kp {

PooledSystemcUpdate::PooledSystemcUpdate(const HardwareSpec& hw, const LoweredStep& step, const Precision& precision)
    : m_sc(hw, step, precision) {}

UpdateResult PooledSystemcUpdate::simulate(int64_t batch, int64_t learners, std::vector<LayerRecord>* layers) const {
  const auto it = m_results.find((batch + learners - 1) / learners);
  if (it == m_results.end()) {
    std::fprintf(stderr, "PooledSystemcUpdate: per-learner batch %lld was not simulated\n",
                 static_cast<long long>((batch + learners - 1) / learners));
    std::abort();  // an internal bug: the caller did not request this point
  }
  return m_sc.simulate_with(it->second, batch, learners, layers);
}

void run_systemc_requests(const std::vector<ScRequest>& requests, int workers) {
  std::vector<ScChipRun> runs;
  std::vector<ScRequest> owners;
  std::set<std::pair<const PooledSystemcUpdate*, int64_t>> seen;
  for (const ScRequest& r : requests) {
    if (!seen.insert({r.model, r.per_learner_batch}).second) continue;
    runs.push_back(r.model->systemc().chip_run(r.per_learner_batch));
    owners.push_back(r);
  }
  if (runs.empty()) return;
  const auto results = run_chip_sc_pool(runs, std::max(1, workers));
  for (size_t j = 0; j < runs.size(); ++j)
    owners[j].model->set_results(owners[j].per_learner_batch, owners[j].model->systemc().op_costs_from(results.at(j)));
}

}  // namespace kp
