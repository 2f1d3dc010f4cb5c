#include "core/network_spec.h"

#include <initializer_list>
#include <stdexcept>

#include "core/int_math.h"
#include "core/limits.h"
#include "core/units.h"

namespace kp {

const char* layer_kind_name(LayerKind k) {
  switch (k) {
    case LayerKind::Dense: return "dense";
    case LayerKind::Conv2d: return "conv2d";
    case LayerKind::MaxPool: return "maxpool";
    case LayerKind::AvgPool: return "avgpool";
    case LayerKind::GlobalAvgPool: return "global_avgpool";
    case LayerKind::Relu: return "relu";
    case LayerKind::BatchNorm: return "batchnorm";
    case LayerKind::Flatten: return "flatten";
    case LayerKind::SoftmaxCrossEntropy: return "softmax_cross_entropy";
    case LayerKind::Residual: return "residual";
  }
  throw std::logic_error("unknown LayerKind");
}

namespace {

int64_t window_out(int64_t in, int64_t kernel, int64_t stride, Padding padding) {
  // "same" as in TensorFlow: ceil(in/stride); "valid": floor((in-kernel)/stride)+1.
  if (padding == Padding::Same) return (in + stride - 1) / stride;
  return in < kernel ? 0 : (in - kernel) / stride + 1;
}

// The product of sizes, refused (std::invalid_argument) beyond the plausibility limit of `what`.
int64_t product(const std::string& where, const char* what, std::initializer_list<int64_t> factors) {
  int64_t out = 1;
  for (int64_t f : factors)
    if (!checked_mul(out, f, out) || out > limits::kParams)
      throw std::invalid_argument(where + ": more than " + format_limit(limits::kParams) + " " + what);
  return out;
}

Shape resolve_one(const LayerSpec& l, const Shape& in, int64_t& params) {
  const std::string where = "layer \"" + l.name + "\" (" + layer_kind_name(l.kind) + ")";
  params = 0;
  switch (l.kind) {
    case LayerKind::Dense: {
      if (in.h != 1 || in.w != 1)
        throw std::invalid_argument(where + ": input is " + std::to_string(in.c) + "x" +
                                    std::to_string(in.h) + "x" + std::to_string(in.w) +
                                    ", a dense layer needs a flatten before it");
      params = product(where, "parameters", {in.c, l.units}) + (l.bias ? l.units : 0);
      return {l.units, 1, 1};
    }
    case LayerKind::Conv2d: {
      const Shape out{l.filters, window_out(in.h, l.kernel, l.stride, l.padding),
                      window_out(in.w, l.kernel, l.stride, l.padding)};
      if (out.h <= 0 || out.w <= 0) throw std::invalid_argument(where + ": kernel larger than input");
      params = product(where, "parameters", {l.kernel, l.kernel, in.c, l.filters}) + (l.bias ? l.filters : 0);
      return out;
    }
    case LayerKind::MaxPool:
    case LayerKind::AvgPool: {
      const Shape out{in.c, window_out(in.h, l.kernel, l.stride, l.padding),
                      window_out(in.w, l.kernel, l.stride, l.padding)};
      if (out.h <= 0 || out.w <= 0) throw std::invalid_argument(where + ": window larger than input");
      return out;
    }
    case LayerKind::GlobalAvgPool: return {in.c, 1, 1};
    case LayerKind::Flatten: return {in.elements(), 1, 1};
    case LayerKind::BatchNorm: params = 2 * in.c; return in;
    case LayerKind::Relu:
    case LayerKind::SoftmaxCrossEntropy: return in;
    case LayerKind::Residual: break;
  }
  throw std::logic_error("resolve_one: residual handled by the caller");
}

void resolve_list(const std::vector<LayerSpec>& specs, Shape& shape,
                  std::vector<ResolvedLayer>& out, int64_t& total_params) {
  for (const LayerSpec& l : specs) {
    if (l.kind != LayerKind::Residual) {
      ResolvedLayer r;
      r.spec = l;
      r.in = shape;
      r.out = resolve_one(l, shape, r.params);
      // Each factor is bounded by the parser, so c * h * w cannot overflow before this check.
      if (r.out.elements() > limits::kTensorElements)
        throw std::invalid_argument("layer \"" + l.name + "\" (" + layer_kind_name(l.kind) + "): output of " +
                                    std::to_string(r.out.elements()) + " elements per sample, expected at most " +
                                    format_limit(limits::kTensorElements));
      total_params += r.params;
      if (total_params > limits::kParams)
        throw std::invalid_argument("the network has more than " + format_limit(limits::kParams) + " parameters");
      shape = r.out;
      out.push_back(std::move(r));
      continue;
    }
    const Shape block_in = shape;
    const int64_t start = static_cast<int64_t>(out.size());
    resolve_list(l.body, shape, out, total_params);
    ResolvedLayer join;
    join.spec = l;
    join.spec.body.clear();
    join.spec.shortcut.clear();
    join.block_start = start;
    Shape short_shape = block_in;
    resolve_list(l.shortcut, short_shape, join.shortcut, total_params);
    if (!(short_shape == shape))
      throw std::invalid_argument("residual \"" + l.name + "\": body gives " +
                                  std::to_string(shape.c) + "x" + std::to_string(shape.h) + "x" +
                                  std::to_string(shape.w) + " but the shortcut gives " +
                                  std::to_string(short_shape.c) + "x" + std::to_string(short_shape.h) +
                                  "x" + std::to_string(short_shape.w));
    join.in = shape;
    join.out = shape;
    out.push_back(std::move(join));
  }
}

}  // namespace

ResolvedNetwork resolve_network(const NetworkSpec& spec) {
  ResolvedNetwork net;
  net.input = spec.input;
  Shape shape = spec.input;
  resolve_list(spec.layers, shape, net.layers, net.params);
  if (spec.classes > 0 && shape.elements() != spec.classes)
    throw std::invalid_argument("the network ends with " + std::to_string(shape.elements()) +
                                " outputs but the workload has " + std::to_string(spec.classes) +
                                " classes");
  return net;
}

}  // namespace kp
