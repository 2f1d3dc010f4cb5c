// Lowering of sequence layers (core/lower_ops.h).
//
// Attention (Vaswani et al. 2017) on S positions of d features, H query heads of width hd and KV
// key/value heads: the Q, K, V projection is one GEMM (S x (H + 2 KV) hd x d per sample), the
// scores Q K^T and the context P V are batched GEMMs of one problem per head and sample (S x S x hd
// and S x hd x S), softmax with scale and mask is vector work on H S^2 elements, and the output
// projection is S x d x H hd. Backward: dP = dC V^T, dV = P^T dC, the softmax gradient, dQ = dS K
// and dK = dS^T Q, then both projections' data and weight gradients. Per token and layer the
// score products are 4 S d multiply-adds forward and twice that backward, the 12 l s d of Kaplan
// et al. 2020. `fused` keeps the scores on chip (FlashAttention, Dao et al. 2022): their writes
// and reads leave DRAM, the FLOPs stay (backward's recomputation of the scores is not counted).
//
// Recurrences (LSTM, Hochreiter & Schmidhuber 1997; GRU, Cho et al. 2014) with G gates (4 or 3)
// of h units: the input projection of all positions is one GEMM, the recurrent product
// h_{t-1} W_hh^T is a chain of S small GEMMs (B x G h x h, step t waits for t-1), with the gate
// arithmetic per step; backward runs the chain in reverse, and both weight gradients are one GEMM
// each over all positions (as cuDNN does). Directions of a bidirectional layer run side by side
// (groups of 2).
#include <stdexcept>

#include "core/layer_shapes.h"
#include "core/lower_ops.h"

namespace kp {
namespace {

int64_t embedding(const ResolvedLayer& l, LayerOps& o) {
  const int64_t out_e = l.out.elements();
  // Gather rows (and add the position and segment rows): no GEMM. The gradient updates the rows
  // that were read (a scatter-add), not a dense product over the table.
  const double adds = (l.spec.positions > 0 ? 1.0 : 0.0) + (l.spec.segments > 0 ? 1.0 : 0.0);
  o.fwd.push_back(elementwise_op(o.id, Phase::Forward, out_e, 1.0 + adds, 2.0 + adds));
  Op b = elementwise_op(o.id, Phase::BackwardWeight, out_e, 1.0 + adds, 3.0 * (1.0 + adds));
  b.grad_params = l.params;
  o.bwd.push_back(b);
  return out_e;
}

int64_t attention(const ResolvedLayer& l, LayerOps& o) {
  const LayerSpec& s = l.spec;
  const AttentionDims a = attention_dims(s, l.in.c);
  const int64_t S = l.in.h, d = l.in.c, H = a.heads, hd = a.head_dim;
  const int64_t qkv = (a.heads + 2 * a.kv_heads) * hd, q = H * hd;
  const int64_t proj_params = d * qkv + (s.bias ? qkv : 0);
  const double scores_moved = s.fused ? 0.0 : 1.0;
  auto batched = [&](Phase p, GemmDims g) {
    g.groups = H;
    return gemm_op(o.id, p, g, BatchDim::Groups);
  };
  // Split over tp chips by heads (Megatron-LM): Q, K, V by columns, the output projection by rows.
  auto split = [](Op op, TpDim dim, int64_t reduce = 0) {
    op.tp_dim = dim, op.tp_reduce_elements = reduce;
    return op;
  };
  auto core = [](Op op) {
    op.attention_core = true;
    return op;
  };
  // Forward.
  o.fwd.push_back(split(gemm_op(o.id, Phase::Forward, {S, qkv, d}, BatchDim::M), TpDim::N));
  if (s.bias) o.fwd.push_back(split(elementwise_op(o.id, Phase::Forward, S * qkv, 1, 2), TpDim::Elements));
  Op scores = batched(Phase::Forward, {S, S, hd});
  scores.out_fraction = scores_moved;
  o.fwd.push_back(core(split(scores, TpDim::Groups)));
  // Scale, mask (causal) and softmax: exp, sum, divide; 2 tensors of H S^2 unless fused.
  // Fused (FlashAttention): scores, softmax and context are one kernel, and so is the backward's
  // dP, dV, softmax gradient, dQ and dK.
  auto in_kernel = [&](Op op) {
    op.fused_with_previous = s.fused;
    return op;
  };
  o.fwd.push_back(in_kernel(core(split(
      elementwise_op(o.id, Phase::Forward, H * S * S, s.causal ? 6 : 5, 2 * scores_moved), TpDim::Elements))));
  Op context = batched(Phase::Forward, {S, hd, S});
  context.a_unique_fraction = scores_moved;
  o.fwd.push_back(in_kernel(core(split(context, TpDim::Groups))));
  o.fwd.push_back(split(gemm_op(o.id, Phase::Forward, {S, d, q}, BatchDim::M), TpDim::K, S * d));
  if (s.bias) o.fwd.push_back(elementwise_op(o.id, Phase::Forward, S * d, 1, 2));
  // Backward: output projection, score products, softmax, then the Q, K, V projection.
  o.bwd.push_back(split(gemm_op(o.id, Phase::BackwardData, {S, q, d}, BatchDim::M), TpDim::N));
  Op out_w = gemm_op(o.id, Phase::BackwardWeight, {q, d, S}, BatchDim::K);
  out_w.grad_params = q * d + (s.bias ? d : 0);
  o.bwd.push_back(split(out_w, TpDim::M));
  Op dp = batched(Phase::BackwardData, {S, S, hd});
  dp.out_fraction = scores_moved;
  o.bwd.push_back(split(dp, TpDim::Groups));
  Op dv = batched(Phase::BackwardData, {S, hd, S});
  dv.a_unique_fraction = scores_moved;
  o.bwd.push_back(in_kernel(split(dv, TpDim::Groups)));
  o.bwd.push_back(
      in_kernel(split(elementwise_op(o.id, Phase::BackwardData, H * S * S, 3, 3 * scores_moved), TpDim::Elements)));
  for (int i = 0; i < 2; ++i) {  // dQ = dS K, dK = dS^T Q
    Op g = batched(Phase::BackwardData, {S, hd, S});
    g.a_unique_fraction = scores_moved;
    o.bwd.push_back(in_kernel(split(g, TpDim::Groups)));
  }
  if (o.data_grad)
    o.bwd.push_back(split(gemm_op(o.id, Phase::BackwardData, {S, d, qkv}, BatchDim::M), TpDim::K, S * d));
  Op in_w = gemm_op(o.id, Phase::BackwardWeight, {d, qkv, S}, BatchDim::K);
  in_w.grad_params = proj_params;
  o.bwd.push_back(split(in_w, TpDim::N));
  // Kept for backward: the input, Q, K, V, the context, and the probabilities unless fused.
  return S * d + S * qkv + S * q + (s.fused ? 0 : H * S * S);
}

// The two directions summed: an add forward; the gradient passes to both unchanged.
void pointwise_merge(const ResolvedLayer& l, LayerOps& o) {
  o.fwd.push_back(elementwise_op(o.id, Phase::Forward, l.out.elements(), 1, 3));
}

int64_t recurrent(const ResolvedLayer& l, LayerOps& o) {
  const LayerSpec& s = l.spec;
  const bool lstm = s.kind == LayerKind::Lstm;
  const int64_t G = lstm ? 4 : 3, h = s.units, S = l.in.h, c = l.in.c, dirs = s.bidirectional ? 2 : 1;
  // Gate arithmetic per unit and step: LSTM 3 sigmoids, 2 tanh (4 ops each) and 4 products or
  // sums; GRU 2 sigmoids, 1 tanh and 5 products or sums. Backward about 1.5x.
  const double gate_ops = lstm ? 24 : 17;
  const double gate_tensors = static_cast<double>(G) + 3.0;  // read the gates and c_{t-1}, write h_t, c_t
  Op in_proj = gemm_op(o.id, Phase::Forward, {S, G * h, c, dirs}, BatchDim::M);
  o.fwd.push_back(in_proj);
  Op rec = gemm_op(o.id, Phase::Forward, {1, G * h, h, dirs}, BatchDim::M);
  rec.serial = S;
  o.fwd.push_back(rec);
  Op gates = elementwise_op(o.id, Phase::Forward, dirs * h, gate_ops, gate_tensors);
  gates.serial = S;
  o.fwd.push_back(gates);
  Op gates_b = elementwise_op(o.id, Phase::BackwardData, dirs * h, 1.5 * gate_ops, gate_tensors + 1.0);
  gates_b.serial = S;
  o.bwd.push_back(gates_b);
  Op rec_b = gemm_op(o.id, Phase::BackwardData, {1, h, G * h, dirs}, BatchDim::M);
  rec_b.serial = S;
  o.bwd.push_back(rec_b);
  if (o.data_grad) o.bwd.push_back(gemm_op(o.id, Phase::BackwardData, {S, c, G * h, dirs}, BatchDim::M));
  Op w_hh = gemm_op(o.id, Phase::BackwardWeight, {h, G * h, S, dirs}, BatchDim::K);
  w_hh.grad_params = dirs * (G * h * h + (s.bias ? 2 * G * h : 0));
  o.bwd.push_back(w_hh);
  Op w_ih = gemm_op(o.id, Phase::BackwardWeight, {c, G * h, S, dirs}, BatchDim::K);
  w_ih.grad_params = l.params - w_hh.grad_params;
  o.bwd.push_back(w_ih);
  if (s.merge_sum) pointwise_merge(l, o);
  // Kept: the input, the gates and both states of every step.
  return S * c + dirs * S * (G + 2) * h;
}

}  // namespace

bool is_sequence_kind(LayerKind k) {
  return k == LayerKind::Embedding || k == LayerKind::Attention || k == LayerKind::Lstm || k == LayerKind::Gru;
}

int64_t lower_sequence_layer(const ResolvedLayer& l, LayerOps& o) {
  switch (l.spec.kind) {
    case LayerKind::Embedding: return embedding(l, o);
    case LayerKind::Attention: return attention(l, o);
    case LayerKind::Lstm:
    case LayerKind::Gru: return recurrent(l, o);
    default: throw std::logic_error("lower_sequence_layer: not a sequence layer");
  }
}

}  // namespace kp
