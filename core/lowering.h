#pragma once
// Lowers one training step of a resolved network to GEMMs and elementwise work, once per network,
// with every size a linear function of the per-learner batch, so that sweeps evaluate thousands
// of batch sizes without re-lowering (no allocation on the hot path). Contract: ops are in
// execution order (forward in layer order, backward in reverse, update last); GEMM dims follow
// SCALE-Sim's mapping: M = output pixels x batch (GEMM rows), N = filters, K = window (FH*FW*Cin).
//   forward        M = B*Ho*Wo, N = Cout, K = k*k*Cin
//   backward-data  M = B*H*W,   N = Cin,  K = k*k*Cout   (skipped for the first layer)
//   backward-weight M = k*k*Cin, N = Cout, K = B*Ho*Wo
#include <cstdint>
#include <string>
#include <vector>

#include "core/network_spec.h"

namespace kp {

enum class Phase { Forward, BackwardData, BackwardWeight, Update };
enum class OpKind { Gemm, Elementwise };
enum class BatchDim { None, M, K };  // which GEMM dimension scales with the batch

const char* phase_name(Phase p);  // "forward", "backward_data", "backward_weight", "update"

struct GemmDims {
  int64_t m = 0, n = 0, k = 0;
  int64_t macs() const { return m * n * k; }
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

  GemmDims gemm_at(int64_t batch) const {
    GemmDims g = gemm;
    if (batch_dim == BatchDim::M) g.m *= batch;
    if (batch_dim == BatchDim::K) g.k *= batch;
    return g;
  }
  int64_t elements_at(int64_t batch) const { return per_sample ? elements * batch : elements; }
};

struct LoweredStep {
  std::vector<std::string> layer_names;
  std::vector<Op> ops;
  int64_t params = 0;
  int64_t activation_elements_per_sample = 0;  // kept for backward (memory footprint)
};

LoweredStep lower_training_step(const ResolvedNetwork& net);

}  // namespace kp
