#pragma once
// The interconnect's part of a `simulate --fidelity systemc --trace` timeline. Contract:
// append_net_trace() runs each gradient bucket's all-reduce again on the SystemC interconnect
// without the symmetry shortcut (so every real link is simulated and shown), and adds to the trace
// document at `path` (the chip's timeline, or nothing yet) one track per link that carries data,
// under the process "interconnect". Every hop of every transfer is a span named "allreduce" with
// args.op "bucket b step s" (b in reduction order, s the collective step), placed at
// bucket_start_s[b] + its time in the bucket's run: the update's timeline, in which the chip's
// tracks start with forward. The file is replaced atomically.
#include <cstdint>
#include <string>
#include <vector>

#include "core/hw_spec.h"
#include "sim/step_profile.h"

namespace kp {

void append_net_trace(const std::string& path, const InterconnectSpec& ic, int64_t learners, const StepProfile& prof,
                      const std::vector<double>& bucket_start_s);

}  // namespace kp
