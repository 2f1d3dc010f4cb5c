#include "core/lowering.h"

#include <algorithm>
#include <stdexcept>

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

namespace {

Op elementwise(int32_t layer, Phase phase, int64_t elements, double ops, double tensors) {
  Op op;
  op.layer = layer;
  op.phase = phase;
  op.kind = OpKind::Elementwise;
  op.elements = elements;
  op.ops_per_element = ops;
  op.tensors_moved = tensors;
  return op;
}

Op gemm(int32_t layer, Phase phase, GemmDims g, BatchDim bd) {
  Op op;
  op.layer = layer;
  op.phase = phase;
  op.gemm = g;
  op.batch_dim = bd;
  return op;
}

// Forward and backward ops of one layer. Costs of elementwise layers are vector ops per element:
// ReLU 1; max-pool k*k compares per output; batch-norm 5 forward (mean, var, normalise, scale,
// shift) and 8 backward; softmax-cross-entropy 5 (exp, sum, divide, log, subtract).
void lower_layer(const ResolvedLayer& l, int32_t id, bool first, std::vector<Op>& fwd,
                 std::vector<Op>& bwd) {
  const int64_t in_e = l.in.elements(), out_e = l.out.elements();
  switch (l.spec.kind) {
    case LayerKind::Dense:
    case LayerKind::Conv2d: {
      const bool conv = l.spec.kind == LayerKind::Conv2d;
      const int64_t kk = conv ? l.spec.kernel * l.spec.kernel : 1;
      const int64_t pix_out = l.out.h * l.out.w, pix_in = l.in.h * l.in.w;
      const int64_t cout = l.out.c, cin = l.in.c;
      const double in_fraction = static_cast<double>(pix_in) / static_cast<double>(pix_out * kk);
      Op f = gemm(id, Phase::Forward, {pix_out, cout, kk * cin}, BatchDim::M);
      f.a_unique_fraction = std::min(1.0, in_fraction);
      fwd.push_back(f);
      if (l.spec.bias) fwd.push_back(elementwise(id, Phase::Forward, out_e, 1, 2));
      Op wg = gemm(id, Phase::BackwardWeight, {kk * cin, cout, pix_out}, BatchDim::K);
      wg.grad_params = l.params;
      wg.a_unique_fraction = std::min(1.0, in_fraction);
      // Reverse order inside the layer: data gradient first lets the previous layer start.
      if (!first) {
        // The data gradient is the transposed convolution: each forward MAC has exactly one
        // backward MAC. Per input pixel the reduction runs over the (output pixel, tap) pairs that
        // touched it, k*k*cout*pix_out/pix_in on average: k*k*cout at stride 1 with same padding,
        // 1/s^2 of it at stride s (implicit-GEMM dgrad does not multiply the zeros a dilated dY
        // would hold; cuDNN, CUTLASS strided dgrad). Same MAC count as the forward GEMM.
        const int64_t k_red = pix_out < pix_in ? std::max<int64_t>(1, (kk * cout * pix_out + pix_in / 2) / pix_in)
                                               : kk * cout;
        Op bd = gemm(id, Phase::BackwardData, {pix_in, cin, k_red}, BatchDim::M);
        bd.a_unique_fraction = std::min(1.0, static_cast<double>(pix_out * cout) / static_cast<double>(pix_in * k_red));
        bwd.push_back(bd);
      }
      bwd.push_back(wg);
      return;
    }
    case LayerKind::MaxPool:
    case LayerKind::AvgPool: {
      const double window = static_cast<double>(l.spec.kernel * l.spec.kernel);
      fwd.push_back(elementwise(id, Phase::Forward, out_e, window, 1.0 + static_cast<double>(in_e) / out_e));
      bwd.push_back(elementwise(id, Phase::BackwardData, in_e, 1, 2));
      return;
    }
    case LayerKind::GlobalAvgPool:
      fwd.push_back(elementwise(id, Phase::Forward, in_e, 1, 1));
      bwd.push_back(elementwise(id, Phase::BackwardData, in_e, 1, 1));
      return;
    case LayerKind::Relu:
      fwd.push_back(elementwise(id, Phase::Forward, out_e, 1, 2));
      bwd.push_back(elementwise(id, Phase::BackwardData, out_e, 1, 3));
      return;
    case LayerKind::BatchNorm: {
      fwd.push_back(elementwise(id, Phase::Forward, out_e, 5, 2));
      Op b = elementwise(id, Phase::BackwardWeight, out_e, 8, 3);
      b.grad_params = l.params;
      bwd.push_back(b);
      return;
    }
    case LayerKind::SoftmaxCrossEntropy:
      fwd.push_back(elementwise(id, Phase::Forward, out_e, 5, 2));
      bwd.push_back(elementwise(id, Phase::BackwardData, out_e, 1, 2));
      return;
    case LayerKind::Residual:
      fwd.push_back(elementwise(id, Phase::Forward, out_e, 1, 3));
      bwd.push_back(elementwise(id, Phase::BackwardData, out_e, 1, 3));
      return;
    case LayerKind::Flatten: return;  // a reshape moves no data
  }
}

}  // namespace

LoweredStep lower_training_step(const ResolvedNetwork& net) {
  LoweredStep step;
  step.params = net.params;
  std::vector<std::vector<Op>> backward;  // per layer, replayed in reverse
  std::vector<Op> fwd;
  auto add = [&](const ResolvedLayer& l, bool first) {
    const int32_t id = static_cast<int32_t>(step.layer_names.size());
    step.layer_names.push_back(l.spec.name);
    step.activation_elements_per_sample += l.out.elements();
    std::vector<Op> bwd;
    lower_layer(l, id, first, fwd, bwd);
    backward.push_back(std::move(bwd));
  };
  for (size_t i = 0; i < net.layers.size(); ++i) {
    for (const ResolvedLayer& s : net.layers[i].shortcut) add(s, false);
    add(net.layers[i], i == 0);
  }
  step.ops = fwd;
  for (auto it = backward.rbegin(); it != backward.rend(); ++it)
    step.ops.insert(step.ops.end(), it->begin(), it->end());
  Op update = elementwise(static_cast<int32_t>(step.layer_names.size()), Phase::Update, net.params, 4, 4);
  update.per_sample = false;  // SGD with momentum: read w, g, v; write w, v
  step.layer_names.push_back("optimizer");
  step.ops.push_back(update);
  return step;
}

}  // namespace kp
