#pragma once
// The SystemC fidelity for many points at once. SystemcUpdate::simulate() forks one SystemC
// worker per call; a study instead collects every (design, per-learner batch) it needs, runs them
// all in one forked worker pool (run_chip_sc_pool, `workers` processes, one elaboration
// each) and answers simulate() from those results. Since T_update depends on the chip only
// through m = ceil(M / P), a design's whole (M, P) grid needs one SystemC run per distinct m.
// Contract: results equal SystemcUpdate::simulate() point for point; simulate() of an m that was
// not computed is an internal bug (abort). Fork only from a single-threaded moment (the runner
// calls this on its main thread with no worker threads running and MPI finalised or unused).
#include <map>
#include <memory>
#include <vector>

#include "sim/systemc/systemc_update.h"

namespace kp {

class PooledSystemcUpdate : public UpdateModel {
 public:
  PooledSystemcUpdate(const HardwareSpec& hw, const LoweredStep& step, const Precision& precision);
  const char* fidelity() const override { return "systemc"; }
  UpdateResult simulate(int64_t batch, int64_t learners, std::vector<LayerRecord>* layers = nullptr) const override;

  const SystemcUpdate& systemc() const { return m_sc; }
  void set_results(int64_t per_learner_batch, std::vector<OpCost> per_op) {
    m_results[per_learner_batch] = std::move(per_op);
  }

 private:
  SystemcUpdate m_sc;
  std::map<int64_t, std::vector<OpCost>> m_results;  // by per-learner batch
};

struct ScRequest {
  PooledSystemcUpdate* model;
  int64_t per_learner_batch;
};

// Runs every request's ops in one pool of `workers` forked processes and stores the results in
// the requests' models. Duplicate requests are run once.
void run_systemc_requests(const std::vector<ScRequest>& requests, int workers);

}  // namespace kp
