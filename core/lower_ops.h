#pragma once
// Building blocks of the lowering (core/lowering.h), shared by the per-kind lowerers. Contract:
// each lower_* appends one layer's forward ops to `fwd` and its backward ops, in the order they
// run, to `bwd`, and returns the elements per sample that the layer keeps for its backward pass.
#include <vector>

#include "core/lowering.h"

namespace kp {

Op elementwise_op(int32_t layer, Phase phase, int64_t elements, double ops, double tensors);
Op gemm_op(int32_t layer, Phase phase, GemmDims g, BatchDim bd);

struct LayerOps {
  std::vector<Op>& fwd;
  std::vector<Op>& bwd;
  int32_t id;
  bool data_grad;  // false where the input is the network's (nothing upstream needs its gradient)
};

// Dense, convolutions, pools, normalisations, activations, joins, views and losses.
int64_t lower_basic_layer(const ResolvedLayer& l, LayerOps& o);
// Embedding, attention, LSTM and GRU.
int64_t lower_sequence_layer(const ResolvedLayer& l, LayerOps& o);
bool is_sequence_kind(LayerKind k);
// Sets the tensor-parallel role (Op::tp_dim, tp_reduce_elements) of one layer's ops from its
// `tensor_parallel:` role; attention marks its own ops (split by heads).
void mark_tensor_split(const ResolvedLayer& l, Op* begin, Op* end);

}  // namespace kp
