// Tensor-parallel roles of lowered ops (core/lower_ops.h: mark_tensor_split). Megatron-LM
// (Shoeybi et al. 2019, section 3): a column-split dense layer Y = X W, W = [W_1 .. W_t], needs
// no communication forward; its backward all-reduces the partial input gradients (operator f).
// A row-split layer, W = [W_1; ..; W_t], sums partial outputs in forward (operator g) and needs
// nothing in backward. Elementwise work between them runs on the split tensor.
#include "core/lower_ops.h"

namespace kp {

void mark_tensor_split(const ResolvedLayer& l, Op* begin, Op* end) {
  const TensorSplit role = l.spec.tensor_parallel;
  for (Op* op = begin; op != end; ++op) {
    const bool gemm = op->kind == OpKind::Gemm;
    if (l.spec.kind == LayerKind::Embedding) {
      // Vocabulary-parallel rows: each chip gathers its own rows (zeros elsewhere), then the
      // group sums them; each chip's gradient scatter touches only its rows.
      if (op->phase == Phase::Forward) op->tp_reduce_elements = l.out.elements();
      if (op->phase == Phase::BackwardWeight) op->tp_dim = TpDim::Elements;
      continue;
    }
    switch (role) {
      case TensorSplit::Column:
        if (!gemm) op->tp_dim = TpDim::Elements;  // the bias of the split outputs
        else if (op->phase == Phase::Forward || op->phase == Phase::BackwardWeight) op->tp_dim = TpDim::N;
        else op->tp_dim = TpDim::K, op->tp_reduce_elements = l.in.elements();
        break;
      case TensorSplit::Row:
        if (!gemm) break;  // the bias, added once to the summed output
        if (op->phase == Phase::Forward) op->tp_dim = TpDim::K, op->tp_reduce_elements = l.out.elements();
        else op->tp_dim = op->phase == Phase::BackwardData ? TpDim::N : TpDim::M;
        break;
      case TensorSplit::Sharded: op->tp_dim = TpDim::Elements; break;
      case TensorSplit::Auto:
      case TensorSplit::Replicated: break;
    }
  }
}

}  // namespace kp
