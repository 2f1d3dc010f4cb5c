#pragma once
// Lowers one training step of a resolved network to GEMMs and elementwise work, once per network,
// with every size a linear function of the per-learner batch, so that sweeps evaluate thousands
// of batch sizes without re-lowering (no allocation on the hot path). Contract: ops are in
// execution order (forward in layer order, backward in reverse, update last); GEMM dims follow
// SCALE-Sim's mapping: M = output pixels x batch (GEMM rows), N = filters, K = window (FH*FW*Cin).
//   forward        M = B*Ho*Wo, N = Cout, K = k*k*Cin
//   backward-data  M = B*H*W,   N = Cin,  K = k*k*Cout   (skipped for the first layer)
//   backward-weight M = k*k*Cin, N = Cout, K = B*Ho*Wo
// Sequence layers use the same mapping with positions for pixels; attention's score products are
// batched GEMMs (one problem per head and sample, `groups`), and a recurrence is a chain of small
// GEMMs (`serial`: step t waits for step t-1).
#include <cstdint>
#include <string>
#include <vector>

#include "core/network_spec.h"
#include "core/workload_spec.h"

namespace kp {

enum class Phase { Forward, BackwardData, BackwardWeight, Update };
enum class OpKind { Gemm, Elementwise };
enum class BatchDim { None, M, K, Groups };  // which GEMM dimension scales with the batch
// How tensor parallelism divides an op over tp chips (Megatron-LM's column and row splits, Shoeybi
// et al. 2019): the GEMM dimension that is split, Elements for vector work on a split tensor, None
// for an op every chip of the group runs whole (replicated).
enum class TpDim : uint8_t { None, M, N, K, Groups, Elements };

const char* phase_name(Phase p);  // "forward", "backward_data", "backward_weight", "update"

// `groups` independent problems of m x n x k each (a batched GEMM: attention heads, grouped
// convolution, directions of a bidirectional recurrence).
struct GemmDims {
  int64_t m = 0, n = 0, k = 0;
  int64_t groups = 1;
  int64_t macs() const { return groups * m * n * k; }
};

struct Op {
  int32_t layer = 0;   // index into LoweredStep::layer_names
  Phase phase = Phase::Forward;
  OpKind kind = OpKind::Gemm;
  GemmDims gemm;      // at batch 1
  BatchDim batch_dim = BatchDim::None;
  // Elementwise: elements touched (per sample when per_sample), vector ops per element, and
  // the number of tensors of that size read + written (memory traffic).
  int64_t elements = 0;
  bool per_sample = true;
  double ops_per_element = 1.0;
  double tensors_moved = 2.0;
  int64_t grad_params = 0;  // backward-weight: parameters whose gradient is ready after this op
  // Convolutions run as implicit GEMMs (as cuDNN and TPUs do): the A operand is the im2col view
  // of a tensor, which holds each element about k*k/stride^2 times. DRAM moves the tensor once:
  // this is unique elements / im2col elements (1 for dense layers).
  double a_unique_fraction = 1.0;
  // Fraction of the GEMM output written to DRAM: 0 where a fused kernel keeps it on chip (the
  // attention scores under FlashAttention).
  double out_fraction = 1.0;
  // The op runs this many times one after another (a recurrence over positions); costs are per run.
  int64_t serial = 1;
  TpDim tp_dim = TpDim::None;
  // Elements per sample all-reduced over the tensor-parallel group when the op ends: a row-split
  // product's partial outputs (forward), a column-split product's partial input gradients
  // (backward), a vocabulary-split embedding's rows (forward).
  int64_t tp_reduce_elements = 0;
  // The attention core (scores, softmax, context) that selective recomputation reruns in backward.
  bool attention_core = false;
  // Part of the kernel the previous op started (FlashAttention's scores, softmax and context run
  // as one kernel): no launch of its own (kernel counts, launch waits).
  bool fused_with_previous = false;

  GemmDims gemm_at(int64_t batch) const {
    GemmDims g = gemm;
    if (batch_dim == BatchDim::M) g.m *= batch;
    if (batch_dim == BatchDim::K) g.k *= batch;
    if (batch_dim == BatchDim::Groups) g.groups *= batch;
    return g;
  }
  int64_t elements_at(int64_t batch) const { return per_sample ? elements * batch : elements; }
};

// Per lowered layer: what the memory footprint and pipeline cuts need.
struct LayerInfo {
  int64_t out_elements = 0;        // per sample
  int64_t saved_elements = 0;      // kept for backward, per sample
  int64_t core_elements = 0;       // of saved: the attention scores selective recompute frees
  bool split = false;              // saved tensors divided over the tp group
  bool checkpoint = false;         // a residual join: full recompute keeps its output
  int32_t last_reader = -1;        // the last layer reading the output (-1: none, the loss)
};

struct LoweredStep {
  std::vector<std::string> layer_names;
  std::vector<LayerInfo> layers;   // one per layer_names entry but the optimizer's
  std::vector<Op> ops;
  int64_t params = 0;
  int64_t activation_elements_per_sample = 0;  // kept for backward (memory footprint)
  int64_t tokens_per_sample = 0;               // positions of a sequence input, 0 for images
  int optimizer_state_tensors = 1;             // tensors of the parameters' size the optimizer keeps
  // GEMM multiply-adds of forward and backward per sample (x 2 = FLOPs; update excluded).
  double gemm_macs_per_sample() const;
};

// The optimizer's update (the last op) follows `optimizer`: SGD with momentum by default.
LoweredStep lower_training_step(const ResolvedNetwork& net, OptimizerKind optimizer = OptimizerKind::Momentum);

}  // namespace kp
