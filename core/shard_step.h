#pragma once
// One chip's share of a training step under a layout (core/layout_spec.h): the network's layers
// cut into pp pipeline stages, each stage's ops divided over tp chips by their tensor-parallel
// role (Op::tp_dim; Megatron-LM, Shoeybi et al. 2019), and recomputation inserted before each
// layer's backward ops. Contract: with tp = pp = 1 and no recompute the single stage's ops, params
// and activations equal the step's; otherwise
//   - a split GEMM dimension becomes ceil(dim / tp); split vector work ceil(elements / tp); with
//     sequence parallelism (Korthikanti et al. 2022) also the replicated per-sample vector work;
//   - a split op's parameters are ceil(params / tp) per chip; replicated ones stay whole;
//   - selective recompute reruns each attention core's forward ops (scores, softmax, context)
//     before that layer's backward and frees their saved scores; full recompute reruns every
//     forward op (its tp all-reduces included) and keeps only the residual joins' outputs and the
//     stage's input, plus one segment's activations while it is recomputed (the peak);
//   - stages cut the layers so that each holds about 1/pp of the step's multiply-adds, cutting
//     only after residual joins where the network has them (transformer blocks stay whole).
#include <cstdint>
#include <string>
#include <vector>

#include "core/layout_spec.h"
#include "core/lowering.h"

namespace kp {

struct StageStep {
  LoweredStep step;                  // this chip's ops; params per chip; the update op for them
  int32_t first_layer = 0, end_layer = 0;   // lowered layers [first, end)
  int64_t saved_elements = 0;        // per sample, per chip: kept for backward (after recompute)
  int64_t boundary_elements = 0;     // per sample: activations sent to the next stage (0: last)
  int64_t largest_layer_params = 0;  // per chip: what ZeRO-3 gathers at once
  int64_t largest_op_elements = 0;   // per sample: the largest op output (workspace)
  std::vector<int64_t> tp_reduce_forward, tp_reduce_backward;  // elements per sample, per all-reduce
};

// Places the stages may be cut (after residual joins where the network has them, else between layers).
int64_t cut_points(const LoweredStep& step);
// Why the layout cannot split this step ("" when it can): pp above the number of cut points.
std::string shard_problem(const LoweredStep& step, int64_t pp);
// Throws std::invalid_argument where shard_problem() is not empty.
std::vector<StageStep> shard_step(const LoweredStep& step, int64_t tp, int64_t pp, Recompute recompute,
                                  bool sequence_parallel);

}  // namespace kp
