#include "tools/study/pooled_systemc.h"

#include <cstdio>
#include <cstdlib>
#include <set>

#include "sim/systemc/sc_pool.h"

namespace kp {

PooledSystemcUpdate::PooledSystemcUpdate(const HardwareSpec& hw, const LoweredStep& step, int64_t bytes_per_element)
    : m_sc(hw, step, bytes_per_element) {}

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
  std::vector<ScJob> jobs;
  std::vector<std::vector<size_t>> op_of;
  std::vector<ScRequest> owners;
  std::set<std::pair<const PooledSystemcUpdate*, int64_t>> seen;
  for (const ScRequest& r : requests) {
    if (!seen.insert({r.model, r.per_learner_batch}).second) continue;
    std::vector<size_t> ops;
    ScJob job = r.model->systemc().gemm_job(r.per_learner_batch, ops);
    if (ops.empty()) {  // nothing to simulate (no GEMM at this batch)
      r.model->set_results(r.per_learner_batch, r.model->systemc().per_op_results({}, ops));
      continue;
    }
    jobs.push_back(std::move(job));
    op_of.push_back(std::move(ops));
    owners.push_back(r);
  }
  if (jobs.empty()) return;
  const auto results = run_systolic_sc_pool(jobs, std::max(1, workers));
  for (size_t j = 0; j < jobs.size(); ++j)
    owners[j].model->set_results(owners[j].per_learner_batch, owners[j].model->systemc().per_op_results(results.at(j), op_of[j]));
}

}  // namespace kp
