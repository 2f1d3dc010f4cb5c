#pragma once
// Runs all-reduces on the SystemC interconnect. run_net_sc() elaborates one NetEngine in the calling
// process (SystemC allows one elaboration per process, so at most one call per process) and runs
// the jobs back to back in one sc_start(); run_net_sc_forked() does the same in a forked child and
// returns its results, so a process that never elaborates (the CLI, the SystemC update) may call it
// any number of times. Contract: same results for the same jobs, in job order; a job whose learner
// count does not fit its interconnect throws std::invalid_argument before anything runs; a worker
// that fails is std::runtime_error with the worker's own message (sc_fork.h).
#include <cstdint>
#include <vector>

#include "core/hw_spec.h"
#include "sim/systemc/net/net_engine.h"

namespace kp {

struct NetJob {
  InterconnectSpec ic;
  int64_t learners = 1;
  double bytes = 0;
  bool symmetric = true;  // use the exact symmetry shortcut where symmetric_allowed(ic)
  // Instead of an all-reduce: learners / 2 devices each send `bytes` to device i + learners / 2
  // at once (point_to_point_dag), e.g. one node's devices to the next node's.
  bool point_to_point = false;
  // learners / stride-member all-reduces at once (build_collective_dag's groups): 1 = one.
  int64_t stride = 1;
};

// `spans`, when given, receives each job's link busy intervals (NetEngine::run), one vector per job.
std::vector<NetRunStats> run_net_sc(const std::vector<NetJob>& jobs, std::vector<std::vector<NetSpan>>* spans = nullptr);
std::vector<NetRunStats> run_net_sc_forked(const std::vector<NetJob>& jobs,
                                           std::vector<std::vector<NetSpan>>* spans = nullptr);

}  // namespace kp
