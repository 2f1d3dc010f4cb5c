// Lowering of the layers that are not sequence-specific (core/lower_ops.h). Vector ops per element
// are counts of the arithmetic a kernel does: ReLU 1; max-pool k*k compares per output;
// batch-norm 5 forward (mean, var, normalise, scale, shift) and 8 backward; layer-norm the same
// over features; softmax-cross-entropy 5 (exp, sum, divide, log, subtract); GELU's tanh form 8
// forward and 12 backward (Hendrycks & Gimpel 2016, eq. in section 2).
#include <algorithm>
#include <stdexcept>

#include "core/lower_ops.h"

namespace kp {
namespace {

void dense_or_conv(const ResolvedLayer& l, LayerOps& o) {
  const LayerSpec& s = l.spec;
  const bool conv = s.kind == LayerKind::Conv2d || s.kind == LayerKind::Conv1d;
  const int64_t kw = s.kind == LayerKind::Conv2d ? (s.kernel_w > 0 ? s.kernel_w : s.kernel) : 1;
  const int64_t kk = conv ? s.kernel * kw : 1;
  const int64_t g = conv ? s.groups : 1;
  const int64_t pix_out = l.out.h * l.out.w, pix_in = l.in.h * l.in.w;
  const int64_t cout = l.out.c / g, cin = l.in.c / g;
  const double in_fraction = static_cast<double>(pix_in) / static_cast<double>(pix_out * kk);
  Op f = gemm_op(o.id, Phase::Forward, {pix_out, cout, kk * cin, g}, BatchDim::M);
  f.a_unique_fraction = std::min(1.0, in_fraction);
  o.fwd.push_back(f);
  if (s.bias) o.fwd.push_back(elementwise_op(o.id, Phase::Forward, l.out.elements(), 1, 2));
  Op wg = gemm_op(o.id, Phase::BackwardWeight, {kk * cin, cout, pix_out, g}, BatchDim::K);
  wg.grad_params = l.params;
  wg.a_unique_fraction = std::min(1.0, in_fraction);
  // Reverse order inside the layer: data gradient first lets the previous layer start.
  if (o.data_grad) {
    // The data gradient is the transposed convolution: each forward MAC has exactly one
    // backward MAC. Per input pixel the reduction runs over the (output pixel, tap) pairs that
    // touched it, k*k*cout*pix_out/pix_in on average: k*k*cout at stride 1 with same padding,
    // 1/s^2 of it at stride s (implicit-GEMM dgrad does not multiply the zeros a dilated dY
    // would hold; cuDNN, CUTLASS strided dgrad). Same MAC count as the forward GEMM.
    const int64_t k_red = pix_out < pix_in ? std::max<int64_t>(1, (kk * cout * pix_out + pix_in / 2) / pix_in)
                                           : kk * cout;
    Op bd = gemm_op(o.id, Phase::BackwardData, {pix_in, cin, k_red, g}, BatchDim::M);
    bd.a_unique_fraction =
        std::min(1.0, static_cast<double>(pix_out * cout) / static_cast<double>(pix_in * k_red));
    o.bwd.push_back(bd);
  }
  o.bwd.push_back(wg);
}

// Forward and backward of an elementwise layer: (ops, tensors) per output element each way.
void pointwise(const ResolvedLayer& l, LayerOps& o, double f_ops, double f_tensors, double b_ops, double b_tensors) {
  o.fwd.push_back(elementwise_op(o.id, Phase::Forward, l.out.elements(), f_ops, f_tensors));
  o.bwd.push_back(elementwise_op(o.id, Phase::BackwardData, l.out.elements(), b_ops, b_tensors));
}

// A layer whose backward also gives its parameters' gradient (normalisations).
void normalising(const ResolvedLayer& l, LayerOps& o, double f_ops, double b_ops) {
  o.fwd.push_back(elementwise_op(o.id, Phase::Forward, l.out.elements(), f_ops, 2));
  Op b = elementwise_op(o.id, Phase::BackwardWeight, l.out.elements(), b_ops, 3);
  b.grad_params = l.params;
  o.bwd.push_back(b);
}

}  // namespace

int64_t lower_basic_layer(const ResolvedLayer& l, LayerOps& o) {
  const int64_t in_e = l.in.elements(), out_e = l.out.elements();
  switch (l.spec.kind) {
    case LayerKind::Dense:
    case LayerKind::Conv2d:
    case LayerKind::Conv1d: dense_or_conv(l, o); break;
    case LayerKind::MaxPool:
    case LayerKind::AvgPool: {
      const double window = static_cast<double>(l.spec.kernel * (l.in.sequence ? 1 : l.spec.kernel));
      o.fwd.push_back(elementwise_op(o.id, Phase::Forward, out_e, window, 1.0 + static_cast<double>(in_e) / out_e));
      o.bwd.push_back(elementwise_op(o.id, Phase::BackwardData, in_e, 1, 2));
      break;
    }
    case LayerKind::GlobalAvgPool:
      o.fwd.push_back(elementwise_op(o.id, Phase::Forward, in_e, 1, 1));
      o.bwd.push_back(elementwise_op(o.id, Phase::BackwardData, in_e, 1, 1));
      break;
    case LayerKind::Relu: pointwise(l, o, 1, 2, 1, 3); break;
    case LayerKind::LeakyRelu: pointwise(l, o, 2, 2, 2, 3); break;
    case LayerKind::Gelu: pointwise(l, o, 8, 2, 12, 3); break;
    case LayerKind::Silu: pointwise(l, o, 4, 2, 6, 3); break;
    case LayerKind::Tanh: pointwise(l, o, 4, 2, 3, 3); break;
    case LayerKind::Sigmoid: pointwise(l, o, 4, 2, 3, 3); break;
    case LayerKind::Softmax: pointwise(l, o, 5, 2, 4, 3); break;
    // The mask is one byte per element: a quarter of an fp32 tensor.
    case LayerKind::Dropout: pointwise(l, o, 2, 2.25, 1, 2.25); break;
    // silu(a) * b over half the input: reads both halves, writes one (and the reverse backward).
    case LayerKind::Swiglu: pointwise(l, o, 5, 3, 8, 5); break;
    case LayerKind::BatchNorm: normalising(l, o, 5, 8); break;
    case LayerKind::LayerNorm: normalising(l, o, 5, 8); break;
    case LayerKind::RmsNorm: normalising(l, o, 3, 6); break;
    case LayerKind::SoftmaxCrossEntropy:
    case LayerKind::SigmoidCrossEntropy: pointwise(l, o, 5, 2, 1, 2); break;
    case LayerKind::Residual: pointwise(l, o, 1, 3, 1, 3); break;
    case LayerKind::Add: {
      // The gradient passes to every input unchanged: no backward work of its own.
      const double n = 1.0 + static_cast<double>(l.extra_in.size());
      o.fwd.push_back(elementwise_op(o.id, Phase::Forward, out_e, n - 1, n + 1));
      break;
    }
    case LayerKind::Multiply: pointwise(l, o, 1, 3, 2, 5); break;
    case LayerKind::Concat:
    case LayerKind::Transpose: pointwise(l, o, 1, 2, 1, 2); break;
    case LayerKind::Upsample: {
      const double f = static_cast<double>(out_e) / static_cast<double>(in_e);
      o.fwd.push_back(elementwise_op(o.id, Phase::Forward, out_e, 1, 1.0 + 1.0 / f));
      o.bwd.push_back(elementwise_op(o.id, Phase::BackwardData, in_e, f, 1.0 + f));
      break;
    }
    case LayerKind::Ctc: {
      // Log-softmax over the alphabet per frame, then the alpha (forward) and beta (backward)
      // recursions over 2L+1 label states per frame (Graves et al. 2006): about 6 ops per state.
      const int64_t states = l.in.h * (2 * l.spec.label_length + 1);
      o.fwd.push_back(elementwise_op(o.id, Phase::Forward, out_e, 5, 2));
      o.fwd.push_back(elementwise_op(o.id, Phase::Forward, states, 6, 1));
      o.bwd.push_back(elementwise_op(o.id, Phase::BackwardData, states, 8, 1));
      o.bwd.push_back(elementwise_op(o.id, Phase::BackwardData, out_e, 2, 2));
      break;
    }
    case LayerKind::Flatten:
    case LayerKind::Reshape: break;  // a view moves no data
    // A view as well: each piece is a slice of the input's features, which a GEMM reads through
    // its leading dimension (a strided view on a sequence, contiguous per sample on an NCHW
    // image), and the readers' data gradients are written into the matching slices of one
    // buffer. No copy either way, and it keeps nothing beyond the input its producer keeps.
    case LayerKind::Split: return 0;
    case LayerKind::Embedding:
    case LayerKind::Attention:
    case LayerKind::Lstm:
    case LayerKind::Gru: throw std::logic_error("lower_basic_layer: a sequence layer");
  }
  return out_e;
}

}  // namespace kp
