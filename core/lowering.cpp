#include "core/lowering.h"

#include <algorithm>
#include <stdexcept>

#include "core/layer_shapes.h"
#include "core/lower_ops.h"

namespace kp {

const char* phase_name(Phase p) {
  switch (p) {
    case Phase::Forward: return "forward";
    case Phase::BackwardData: return "backward_data";
    case Phase::BackwardWeight: return "backward_weight";
    case Phase::Update: return "update";
  }
  throw std::logic_error("unknown Phase");
}

Op elementwise_op(int32_t layer, Phase phase, int64_t elements, double ops, double tensors) {
  Op op;
  op.layer = layer;
  op.phase = phase;
  op.kind = OpKind::Elementwise;
  op.elements = elements;
  op.ops_per_element = ops;
  op.tensors_moved = tensors;
  return op;
}

Op gemm_op(int32_t layer, Phase phase, GemmDims g, BatchDim bd) {
  Op op;
  op.layer = layer;
  op.phase = phase;
  op.gemm = g;
  op.batch_dim = bd;
  return op;
}

double LoweredStep::gemm_macs_per_sample() const {
  double macs = 0;
  for (const Op& op : ops)
    if (op.kind == OpKind::Gemm && op.phase != Phase::Update)
      macs += static_cast<double>(op.gemm_at(1).macs()) * static_cast<double>(op.serial);
  return macs;
}

namespace {

// The update: read weights, gradients and state, write weights and state. SGD with momentum
// (v = mu v + g, w -= lr v): 4 vector ops. Adam/AdamW: both moments, bias corrections, the
// square root and the step, about 12 (Kingma & Ba 2015, Algorithm 1); LAMB adds the two norms of
// the trust ratio and a second pass over weights and update (You et al. 2020, Algorithm 2).
// The SGD family keeps the traffic of four parameter-sized tensors it has always been costed at.
Op update_op(int32_t id, int64_t params, OptimizerKind k) {
  double ops = 4, tensors = 4;
  if (is_adam_family(k)) ops = 12, tensors = 7;  // read w, g, m, v; write w, m, v
  if (k == OptimizerKind::Lamb) ops += 4, tensors += 2;
  Op update = elementwise_op(id, Phase::Update, params, ops, tensors);
  update.per_sample = false;
  return update;
}

}  // namespace

LoweredStep lower_training_step(const ResolvedNetwork& net, OptimizerKind optimizer) {
  LoweredStep step;
  step.params = net.params;
  step.tokens_per_sample = net.fields > 0 ? net.fields : net.input.sequence ? net.input.h : 0;
  step.optimizer_state_tensors = optimizer_state_tensors(optimizer);
  // A tensor read by several layers receives their gradients: one add per extra reader, charged
  // where its producer's backward starts. A split's pieces count apart: their gradients land in
  // disjoint slices of one buffer, so readers of different pieces add nothing.
  std::vector<std::vector<int64_t>> readers(net.layers.size());
  for (size_t i = 0; i < net.layers.size(); ++i)
    readers[i].assign(net.layers[i].spec.kind == LayerKind::Split ? net.layers[i].spec.sizes.size() : 1, 0);
  for (const ResolvedLayer& l : net.layers)
    for (size_t k = 0; k < l.inputs.size(); ++k)
      if (l.inputs[k] >= 0) ++readers[static_cast<size_t>(l.inputs[k])][k < l.ports.size() ? l.ports[k] : 0];
  std::vector<std::vector<Op>> backward;  // per lowered layer, replayed in reverse
  std::vector<Op> fwd;
  std::vector<int32_t> lowered_id(net.layers.size(), -1);  // net layer -> lowered layer
  const std::vector<int64_t> no_readers;
  auto add = [&](const ResolvedLayer& l, bool data_grad, const std::vector<int64_t>& port_readers) {
    const int32_t id = static_cast<int32_t>(step.layer_names.size());
    step.layer_names.push_back(l.spec.name);
    std::vector<Op> bwd;
    // The readers' gradients are summed before this layer's own backward starts.
    for (size_t k = 0; k < port_readers.size(); ++k) {
      const int64_t extra = port_readers[k] - 1;
      if (extra <= 0) continue;
      const int64_t elements = l.spec.kind == LayerKind::Split ? split_piece(l.spec, l.in, k).elements()
                                                               : l.out.elements();
      bwd.push_back(elementwise_op(id, Phase::BackwardData, elements, static_cast<double>(extra),
                                   static_cast<double>(extra) + 2.0));
    }
    const size_t fwd_begin = fwd.size(), bwd_begin = bwd.size();
    LayerOps o{fwd, bwd, id, data_grad};
    LayerInfo info;
    info.out_elements = l.out.elements();
    info.saved_elements = is_sequence_kind(l.spec.kind) ? lower_sequence_layer(l, o) : lower_basic_layer(l, o);
    const TensorSplit role = l.spec.tensor_parallel;
    if (l.spec.kind != LayerKind::Attention) {
      mark_tensor_split(l, fwd.data() + fwd_begin, fwd.data() + fwd.size());
      mark_tensor_split(l, bwd.data() + bwd_begin, bwd.data() + bwd.size());
    } else if (!l.spec.fused) {
      info.core_elements = attention_dims(l.spec, l.in.c).heads * l.in.h * l.in.h;
    }
    info.split = l.spec.kind == LayerKind::Attention || role == TensorSplit::Column || role == TensorSplit::Row ||
                 role == TensorSplit::Sharded;
    info.checkpoint = l.spec.kind == LayerKind::Add || l.spec.kind == LayerKind::Residual;
    step.activation_elements_per_sample += info.saved_elements;
    step.layers.push_back(info);
    backward.push_back(std::move(bwd));
    return id;
  };
  // Layers whose output is the network input seen through a view (a split of it): a reader of
  // them, like a reader of the input, needs no data gradient.
  std::vector<char> input_view(net.layers.size(), 0);
  auto is_input = [&](int64_t p) { return p == -1 || (p >= 0 && input_view[static_cast<size_t>(p)]); };
  for (size_t i = 0; i < net.layers.size(); ++i) {
    const ResolvedLayer& l = net.layers[i];
    for (const ResolvedLayer& s : l.shortcut) add(s, true, no_readers);
    // Graph layers list their producers; a chain layer's producer is the one before it.
    bool reads_input = l.inputs.empty() ? i == 0 : true;
    for (int64_t p : l.inputs) reads_input = reads_input && is_input(p);
    input_view[i] = reads_input && l.spec.kind == LayerKind::Split;
    const int32_t id = add(l, !reads_input, readers[i]);
    lowered_id[i] = id;
    auto read = [&](int64_t producer) {
      if (producer < 0) return;
      LayerInfo& p = step.layers[static_cast<size_t>(lowered_id[static_cast<size_t>(producer)])];
      p.last_reader = std::max(p.last_reader, id);
    };
    if (l.inputs.empty()) {
      if (i > 0) read(static_cast<int64_t>(i) - 1);
    } else {
      for (int64_t p : l.inputs) read(p);
    }
    if (l.spec.kind == LayerKind::Residual && l.block_start > 0) read(l.block_start - 1);
  }
  step.ops = fwd;
  for (auto it = backward.rbegin(); it != backward.rend(); ++it)  // each layer's ops in run order
    step.ops.insert(step.ops.end(), it->begin(), it->end());
  step.layer_names.push_back("optimizer");
  step.ops.push_back(update_op(static_cast<int32_t>(step.layer_names.size() - 1), net.params, optimizer));
  return step;
}

}  // namespace kp
