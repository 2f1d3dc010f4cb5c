#pragma once
// Many SystemC simulations from one process. SystemC allows one elaboration per process, so a
// sweep forks `workers` children; each elaborates once, runs its share of the jobs (every
// workers-th job, so long and short configurations mix) in a single sc_start(), and streams the
// per-layer results back over a pipe. Contract: same results, in job order, as one
// run_systolic_sc(jobs) call; the calling process never elaborates, so it may call this again.
// Used by `kneepoint scalesim`; the update's multi-point path is run_chip_sc_pool (chip_executor.h).
#include <vector>

#include "sim/systemc/systolic_sc.h"

namespace kp {

// workers >= 1 (capped at jobs.size()); std::runtime_error if a worker fails.
std::vector<std::vector<ScLayerResult>> run_systolic_sc_pool(const std::vector<ScJob>& jobs, int workers);

}  // namespace kp
