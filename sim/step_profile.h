#pragma once
// One learner's update at per-learner batch m without the all-reduce, and the step that adds
// the all-reduce for P learners. Shared by both fidelities so that they differ only in how an op
// is timed. Contract: StepProfileBuilder::add() takes the ops of a LoweredStep in order; done()
// groups the gradients into buckets as PyTorch DDP does (torch/nn/parallel/distributed.py and its
// Reducer, PyTorch >= 1.5): parameters are assigned in definition (forward) order, the first bucket
// closing once it holds `first_bucket_bytes` (DDP's 1 MiB _DEFAULT_FIRST_BUCKET_BYTES, so that the
// gradients produced last do not wait in a large bucket after backward ends), every later one once
// it holds `bucket_bytes` (bucket_cap_mb, 25 MiB); the last assigned may be partial. Buckets are
// reduced in the reverse order, the order backward produces them; a bucket is ready when its
// first-defined parameter's gradient is. finish_update() starts bucket b's all-reduce at
// max(ready_b, end_{b-1}) (contention-free pipeline) and exposes what ends after backward.
#include <cstdint>
#include <utility>
#include <vector>

#include "core/hw_spec.h"
#include "core/lowering.h"
#include "sim/analytic/chip_analytic.h"
#include "sim/memory_footprint.h"
#include "sim/update_model.h"

namespace kp {

struct StepProfile {
  double forward_s = 0, backward_s = 0, optimizer_s = 0, backward_end_s = 0;
  double launch_wait_s = 0;             // of the above, waiting for kernel launches (fwd + bwd)
  double optimizer_launch_wait_s = 0;   // of optimizer_s
  int64_t kernels = 0, optimizer_kernels = 0;  // forward + backward ops, optimizer ops
  double input_bytes_per_sample = 0;    // what the first layer reads per sample (the input batch)
  ActionCounts actions;                            // link_bytes are added per P
  std::vector<std::pair<double, double>> buckets;  // (ready time in s, gradient bytes), reduction order
};

class StepProfileBuilder {
 public:
  // first_bucket_bytes is capped at bucket_bytes (the first bucket is never the larger one).
  StepProfileBuilder(const LoweredStep& step, double bucket_bytes, double first_bucket_bytes,
                     int64_t grad_bytes_per_param, int64_t per_learner_batch, std::vector<LayerRecord>* layers);
  // Kernels are launched asynchronously: one shorter than `launch_s` waits for the rest of its
  // launch (hardware runtime.kernel_launch; 0 with launch batching). Call before add().
  void set_kernel_launch_s(double launch_s) { m_launch_s = launch_s; }
  void add(const Op& op, const OpCost& cost);
  StepProfile done();

 private:
  const LoweredStep& m_step;
  double m_bucket_limit, m_first_limit, m_grad_bytes;
  int64_t m_batch;
  std::vector<LayerRecord>* m_layers;
  double m_t = 0, m_launch_s = 0;
  std::vector<std::pair<double, double>> m_grads;  // (ready time, bytes) in backward order
  StepProfile m_prof;
};

// `prof` is one micro-step of ceil(m / accumulation) samples; with accumulation a > 1 the learner
// runs a forward/backward micro-steps, adding gradients, and all-reduces only during the last one
// (as DDP's no_sync). `bucket_allreduce_s` (one per bucket) replaces the closed-form all-reduce
// time when given (the SystemC interconnect); buckets still run one after another (one stream).
// `bucket_start_s`, when given, receives when each bucket's all-reduce starts (for traces).
// Fixed costs (hw.runtime): per step runtime.step_overhead (and one kernel_launch with launch
// batching); the input batch's copy over runtime.host_link (exposed: the step needs it); the input
// pipeline delivers per host (devices_per_node learners) input_samples_per_s while the step runs,
// so only the part longer than the step is exposed.
UpdateResult finish_update(const StepProfile& prof, const HardwareSpec& hw, int64_t per_learner_batch,
                           int64_t learners, int64_t accumulation = 1,
                           const std::vector<double>* bucket_allreduce_s = nullptr,
                           std::vector<double>* bucket_start_s = nullptr);

// Micro-steps needed so that one learner's batch fits device memory (dram.capacity): the
// footprint of sim/memory_footprint.h (weights, gradients, optimizer state with the fp32 master
// copy of mixed precision, activations and workspace of one micro-step). 1 when it fits; throws
// ConfigError (naming the hardware file, the footprint's parts and the capacity) when even one
// sample does not fit.
int64_t accumulation_steps(const HardwareSpec& hw, const MemoryNeed& need, int64_t per_learner_batch);

}  // namespace kp
