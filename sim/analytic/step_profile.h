#pragma once
// One learner's update at per-learner batch m without the all-reduce, and the step that adds
// the all-reduce for P learners. Shared by both fidelities so that they differ only in how an op
// is timed. Contract: StepProfileBuilder::add() takes the ops of a LoweredStep in order; gradient
// buckets close when they reach `bucket_bytes` (the last one may be partial); finish_update()
// starts bucket b's all-reduce at max(ready_b, end_{b-1}) (contention-free pipeline) and exposes
// what ends after backward.
#include <cstdint>
#include <utility>
#include <vector>

#include "core/hw_spec.h"
#include "core/lowering.h"
#include "sim/analytic/chip_analytic.h"
#include "sim/update_model.h"

namespace kp {

struct StepProfile {
  double forward_s = 0, backward_s = 0, optimizer_s = 0, backward_end_s = 0;
  ActionCounts actions;                            // link_bytes are added per P
  std::vector<std::pair<double, double>> buckets;  // (ready time in s, gradient bytes)
};

class StepProfileBuilder {
 public:
  StepProfileBuilder(const LoweredStep& step, double bucket_bytes, int64_t grad_bytes_per_param,
                     int64_t per_learner_batch, std::vector<LayerRecord>* layers);
  void add(const Op& op, const OpCost& cost);
  StepProfile done();

 private:
  const LoweredStep& m_step;
  double m_bucket_limit, m_grad_bytes;
  int64_t m_batch;
  std::vector<LayerRecord>* m_layers;
  double m_t = 0, m_bucket = 0;
  StepProfile m_prof;
};

UpdateResult finish_update(const StepProfile& prof, const HardwareSpec& hw, int64_t per_learner_batch,
                           int64_t learners);

}  // namespace kp
