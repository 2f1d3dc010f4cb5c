#pragma once
// The fixed costs of running a training step on a real system, outside the chip's compute: the
// `runtime:` section of a hardware file. Contract: every field is >= 0 and 0 means "no such cost"
// (an absent section is all zeros, and `present` says it was absent so that reports can say so).
//   kernel_launch   host time to dispatch one kernel; launches are asynchronous, so a kernel
//                   shorter than its launch leaves the chip waiting for the rest of it
//   step_overhead   host time per step outside kernel launches (framework, optimizer bookkeeping)
//   host_link       host-to-device bandwidth over which the input batch is copied (0: not copied)
//   input_samples_per_s  samples the input pipeline of one host delivers per second (0: unlimited)
//   launch_batching one launch for the whole step (CUDA graphs, XLA): kernel_launch paid once
#include "core/config_map.h"

namespace kp {

struct RuntimeSpec {
  bool present = false;
  double kernel_launch_s = 0, step_overhead_s = 0, host_link_bytes_per_s = 0, input_samples_per_s = 0;
  bool launch_batching = false;
};

// Reads the keys of a `runtime:` map (rejecting unknown ones).
RuntimeSpec parse_runtime(ConfigMap m);

}  // namespace kp
