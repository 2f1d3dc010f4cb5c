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
//
// Overlap is not free (hardware interconnect.overlap, issue 35): while a bucket's all-reduce runs,
// its kernels hold `units` of the chip's array.count units and move dram_bytes_per_byte device-
// memory bytes per byte the chip sends, at an even rate over the all-reduce. An op of the last
// micro-step's backward then runs at 1/s of its speed, the roofline of what is left to it:
//   s = max(1, compute_s / ((1 - units / count) * seconds), dram_bytes / ((B - r) * seconds))
// (B: dram.bandwidth, r: the all-reduce's device-memory bytes/s; r >= B stops a memory op until
// the all-reduce ends). The all-reduce itself keeps its time: the link, not the chip, bounds it.
// The schedule is swept op by op (a stretched op delays later gradients, hence later buckets);
// without interconnect.overlap it is the pipeline above, unchanged.
#include <cstdint>
#include <utility>
#include <vector>

#include "core/hw_spec.h"
#include "core/lowering.h"
#include "sim/analytic/chip_analytic.h"
#include "sim/memory_footprint.h"
#include "sim/update_model.h"

namespace kp {

// A forward or backward op as the overlap sweep needs it (finish_update).
struct ProfileOp {
  double seconds = 0;     // its time on an idle chip, launch wait included
  double compute_s = 0;   // of which its units compute (OpCost::compute_s)
  double dram_bytes = 0;  // device-memory bytes it moves
};

struct StepProfile {
  double forward_s = 0, backward_s = 0, optimizer_s = 0, backward_end_s = 0;
  double launch_wait_s = 0;             // of the above, waiting for kernel launches (fwd + bwd)
  double optimizer_launch_wait_s = 0;   // of optimizer_s
  int64_t kernels = 0, optimizer_kernels = 0;  // forward + backward ops, optimizer ops
  double input_bytes_per_sample = 0;    // what the first layer reads per sample (the input batch)
  ActionCounts actions;                            // link_bytes are added per P
  std::vector<std::pair<double, double>> buckets;  // (ready time in s, gradient bytes), reduction order
  std::vector<ProfileOp> ops;          // forward then backward, in run order (one micro-step)
  std::vector<int64_t> bucket_ready_op;  // per bucket: the index in ops whose end makes it ready
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
  struct Grad {
    double ready_s, bytes;
    int64_t op;  // index in StepProfile::ops
  };
  std::vector<Grad> m_grads;  // in backward order
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
