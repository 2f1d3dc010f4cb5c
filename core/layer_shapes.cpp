#include "core/layer_shapes.h"

#include <initializer_list>
#include <stdexcept>

#include "core/int_math.h"
#include "core/limits.h"
#include "core/units.h"

namespace kp {
namespace {

[[noreturn]] void fail(const std::string& message) { throw std::invalid_argument(message); }

// The product of sizes, refused beyond the plausibility limit of parameters.
int64_t product(std::initializer_list<int64_t> factors) {
  int64_t out = 1;
  for (int64_t f : factors)
    if (!checked_mul(out, f, out) || out > limits::kParams)
      fail("more than " + format_limit(limits::kParams) + " parameters");
  return out;
}

void need_sequence(const LayerSpec& l, const Shape& in) {
  if (!in.sequence || in.vocab > 0)
    fail(std::string("a ") + layer_kind_name(l.kind) + " layer needs a sequence of features, the input is " +
         shape_text(in) + (in.vocab > 0 ? " (token ids need an embedding first)" : ""));
}

void need_image(const LayerSpec& l, const Shape& in) {
  if (in.sequence)
    fail(std::string("a ") + layer_kind_name(l.kind) +
         " layer needs an image (channels x height x width), the input is " +
         shape_text(in) + (l.kind == LayerKind::Conv2d ? " (use conv1d on sequences)" : ""));
}

Shape same_inputs(const LayerSpec& l, const std::vector<Shape>& in, const std::vector<std::string>& names) {
  if (in.size() < 2) fail(std::string(layer_kind_name(l.kind)) + " needs at least two inputs (inputs: [a, b])");
  for (size_t i = 1; i < in.size(); ++i) {
    const bool concat = l.kind == LayerKind::Concat;
    const bool ok = concat ? in[i].h == in[0].h && in[i].w == in[0].w && in[i].sequence == in[0].sequence
                           : in[i] == in[0];
    if (!ok)
      fail("input \"" + names[i] + "\" is " + shape_text(in[i]) + " but input \"" + names[0] + "\" is " +
           shape_text(in[0]) + (concat ? " (concat joins features of equal positions)" : ""));
  }
  Shape out = in[0];
  if (l.kind == LayerKind::Concat)
    for (size_t i = 1; i < in.size(); ++i) out.c += in[i].c;
  return out;
}

Shape conv_shape(const LayerSpec& l, const Shape& in, int64_t& params) {
  const bool one_d = l.kind == LayerKind::Conv1d;
  if (one_d) need_sequence(l, in);
  else need_image(l, in);
  if (in.c % l.groups != 0 || l.filters % l.groups != 0)
    fail("groups " + std::to_string(l.groups) + " must divide both the input channels (" + std::to_string(in.c) +
         ") and the filters (" + std::to_string(l.filters) + ")");
  const int64_t kw = one_d ? 1 : (l.kernel_w > 0 ? l.kernel_w : l.kernel);
  const int64_t sw = one_d ? 1 : (l.stride_w > 0 ? l.stride_w : l.stride);
  const int64_t pw = l.pad_w >= 0 ? l.pad_w : l.pad;
  Shape out{l.filters, window_out(in.h, l.kernel, l.stride, l.padding, l.pad, l.dilation),
            one_d ? 1 : window_out(in.w, kw, sw, l.padding, pw, l.dilation), in.sequence, 0};
  if (out.h <= 0 || out.w <= 0) fail("kernel larger than input " + shape_text(in));
  params = product({l.kernel, kw, in.c / l.groups, l.filters}) + (l.bias ? l.filters : 0);
  return out;
}

}  // namespace

Shape split_piece(const LayerSpec& l, const Shape& in, size_t k) {
  Shape piece = in;
  piece.c = l.sizes.at(k);
  return piece;
}

int64_t window_out(int64_t in, int64_t kernel, int64_t stride, Padding padding, int64_t pad, int64_t dilation) {
  if (padding == Padding::Same) return (in + stride - 1) / stride;
  const int64_t span = dilation * (kernel - 1) + 1;
  const int64_t padded = in + (padding == Padding::Explicit ? 2 * pad : 0);
  return padded < span ? 0 : (padded - span) / stride + 1;
}

AttentionDims attention_dims(const LayerSpec& l, int64_t d_model) {
  AttentionDims a;
  a.heads = l.heads;
  a.kv_heads = l.kv_heads > 0 ? l.kv_heads : l.heads;
  if (l.head_dim > 0) {
    a.head_dim = l.head_dim;
  } else {
    if (d_model % l.heads != 0)
      fail("heads " + std::to_string(l.heads) + " do not divide d_model " + std::to_string(d_model) +
           " (give head_dim, or a head count that divides it)");
    a.head_dim = d_model / l.heads;
  }
  if (a.heads % a.kv_heads != 0)
    fail("kv_heads " + std::to_string(a.kv_heads) + " must divide heads " + std::to_string(a.heads));
  return a;
}

Shape layer_shape(const LayerSpec& l, const std::vector<Shape>& ins, const std::vector<std::string>& names,
                  int64_t& params) {
  params = 0;
  const Shape& in = ins.front();
  const bool joins = l.kind == LayerKind::Add || l.kind == LayerKind::Multiply || l.kind == LayerKind::Concat;
  if (!joins && ins.size() > 1) fail(std::string(layer_kind_name(l.kind)) + " takes one input");
  if (in.vocab > 0 && l.kind != LayerKind::Embedding)
    fail(std::string("a ") + layer_kind_name(l.kind) + " layer cannot read token ids (" + shape_text(in) +
         "): an embedding goes first");
  switch (l.kind) {
    case LayerKind::Dense: {
      if (!in.sequence && (in.h != 1 || in.w != 1))
        fail("input is " + shape_text(in) + ", a dense layer needs a flatten before it");
      params = (l.tied.empty() ? product({in.c, l.units}) : 0) + (l.bias ? l.units : 0);
      return {l.units, in.sequence ? in.h : 1, 1, in.sequence, 0};
    }
    case LayerKind::Conv2d:
    case LayerKind::Conv1d: return conv_shape(l, in, params);
    case LayerKind::MaxPool:
    case LayerKind::AvgPool: {
      const int64_t kw = in.sequence ? 1 : l.kernel, sw = in.sequence ? 1 : l.stride;
      const Shape out{in.c, window_out(in.h, l.kernel, l.stride, l.padding, l.pad, 1),
                      window_out(in.w, kw, sw, l.padding, l.pad, 1), in.sequence, 0};
      if (out.h <= 0 || out.w <= 0) fail("window larger than input " + shape_text(in));
      return out;
    }
    case LayerKind::GlobalAvgPool: return {in.c, 1, 1};
    case LayerKind::Flatten: return {in.elements(), 1, 1};
    case LayerKind::BatchNorm: params = 2 * in.c; return in;
    case LayerKind::LayerNorm: params = 2 * in.c; return in;
    case LayerKind::RmsNorm: params = in.c; return in;
    case LayerKind::Relu: case LayerKind::LeakyRelu: case LayerKind::Gelu: case LayerKind::Silu:
    case LayerKind::Tanh: case LayerKind::Sigmoid: case LayerKind::Softmax: case LayerKind::Dropout:
    case LayerKind::SoftmaxCrossEntropy: case LayerKind::SigmoidCrossEntropy:
      return in;
    case LayerKind::Swiglu:
      if (in.c % 2 != 0) fail("swiglu halves the features (gate and value), the input has " + std::to_string(in.c));
      return {in.c / 2, in.h, in.w, in.sequence, 0};
    case LayerKind::Add:
    case LayerKind::Multiply:
    case LayerKind::Concat: return same_inputs(l, ins, names);
    case LayerKind::Reshape:
    case LayerKind::Transpose: {
      const Shape out{l.to_c, l.to_h, l.to_w, l.to_sequence, 0};
      if (out.elements() != in.elements())
        fail("reshapes " + shape_text(in) + " (" + std::to_string(in.elements()) + " elements) to " + shape_text(out) +
             " (" + std::to_string(out.elements()) + ")");
      return out;
    }
    case LayerKind::Split: {
      // Cut along the axis concat joins: the features of a sequence, the channels of an image.
      int64_t total = 0;
      std::string list;
      for (int64_t size : l.sizes) {
        total += size;  // each <= kChannels and at most kHeads of them: no overflow
        list += (list.empty() ? "" : " + ") + std::to_string(size);
      }
      if (total != in.c)
        fail("sizes " + list + " = " + std::to_string(total) + " but input \"" + names.front() + "\" has " +
             std::to_string(in.c) + (in.sequence ? " features (" : " channels (") + shape_text(in) + ")");
      return in;
    }
    case LayerKind::Embedding: {
      if (in.vocab <= 0) fail("an embedding reads token ids, the input is " + shape_text(in));
      const int64_t rows = l.vocab > 0 ? l.vocab : in.vocab;
      if (rows < in.vocab)
        fail("vocab " + std::to_string(rows) + " is smaller than the input's " + std::to_string(in.vocab));
      if (l.positions > 0 && l.positions < in.h)
        fail("positions " + std::to_string(l.positions) + " is shorter than the sequence " + std::to_string(in.h));
      params = product({rows + l.positions + l.segments, l.dim});
      return {l.dim, in.h, 1, true, 0};
    }
    case LayerKind::Attention: {
      need_sequence(l, in);
      const AttentionDims a = attention_dims(l, in.c);
      const int64_t q = a.heads * a.head_dim, kv = a.kv_heads * a.head_dim;
      params = product({in.c, q + 2 * kv}) + product({q, in.c}) + (l.bias ? q + 2 * kv + in.c : 0);
      return in;
    }
    case LayerKind::Lstm:
    case LayerKind::Gru: {
      need_sequence(l, in);
      const int64_t gates = l.kind == LayerKind::Lstm ? 4 : 3, dirs = l.bidirectional ? 2 : 1;
      // PyTorch's convention: weights W_ih, W_hh and two bias vectors b_ih, b_hh per direction.
      params = dirs * (product({gates * l.units, in.c + l.units}) + (l.bias ? 2 * gates * l.units : 0));
      return {(l.merge_sum ? 1 : dirs) * l.units, in.h, 1, true, 0};
    }
    case LayerKind::Upsample:
      return {in.c, in.h * l.factor, in.sequence ? 1 : in.w * l.factor, in.sequence, 0};
    case LayerKind::Ctc:
      need_sequence(l, in);
      if (l.label_length > in.h)
        fail("label_length " + std::to_string(l.label_length) + " exceeds the " + std::to_string(in.h) + " frames");
      return in;
    case LayerKind::Residual: break;
  }
  throw std::logic_error("layer_shape: residual blocks are resolved by the caller");
}

}  // namespace kp
