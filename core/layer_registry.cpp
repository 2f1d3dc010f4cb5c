// The `kind:` table of network layers: each entry reads the keys of one kind. Kept apart from the
// list walking (network_parse.cpp) so that a new kind is one entry here and one case in
// layer_shapes.cpp and the lowering.
#include "core/limits.h"
#include "core/network_parse.h"
#include "core/network_parse_keys.h"
#include "core/units.h"

namespace kp {
namespace {

using namespace limits;

LayerSpec base(LayerKind kind, ConfigMap& m) {
  LayerSpec l;
  l.kind = kind;
  l.name = m.text_or("name", "");
  // ':' separates a split's name from its output index ("qkv:1").
  if (l.name.find(':') != std::string::npos)
    m.error("name", "expected a name without ':' (it names an output of a split, as in \"parts:0\"), got \"" +
                        l.name + "\"");
  l.inputs = text_list(m, "inputs");
  l.tensor_parallel = static_cast<TensorSplit>(
      m.choice_or("tensor_parallel", {"auto", "replicated", "column", "row", "sharded"}, 0));
  const bool splits_weights = l.tensor_parallel == TensorSplit::Column || l.tensor_parallel == TensorSplit::Row;
  if (splits_weights && kind != LayerKind::Dense)
    m.error("tensor_parallel", "column and row splits apply to dense layers (use sharded for elementwise work)");
  return l;
}

// kernel, stride, padding (same | valid | an integer or [h, w] of zeros), dilation.
void window_keys(LayerSpec& l, ConfigMap& m, int64_t default_kernel, bool two_d) {
  const auto [kh, kw] = int_pair_or(m, "kernel", 1, kWindow, default_kernel, two_d);
  l.kernel = kh, l.kernel_w = kw == kh ? 0 : kw;
  const bool conv = l.kind == LayerKind::Conv2d || l.kind == LayerKind::Conv1d;
  const auto [sh, sw] = int_pair_or(m, "stride", 1, kWindow, conv ? 1 : kh, two_d);
  l.stride = sh, l.stride_w = sw == sh ? 0 : sw;
  if (m.has("padding") && m.node()["padding"].IsScalar() &&
      (m.node()["padding"].Scalar() == "same" || m.node()["padding"].Scalar() == "valid")) {
    l.padding = m.choice("padding", {"same", "valid"}) == 0 ? Padding::Same : Padding::Valid;
  } else if (m.has("padding")) {
    const auto [ph, pw] = int_pair_or(m, "padding", 0, kWindow, 0, two_d);
    l.padding = Padding::Explicit, l.pad = ph, l.pad_w = pw == ph ? -1 : pw;
  }
  if (conv) l.dilation = m.integer_or("dilation", 1, kWindow, 1);
}

LayerSpec conv(LayerKind kind, ConfigMap& m) {
  LayerSpec l = base(kind, m);
  window_keys(l, m, 1, kind == LayerKind::Conv2d);
  l.filters = m.integer("filters", 1, kChannels);
  l.groups = m.integer_or("groups", 1, kChannels, 1);
  l.bias = m.boolean_or("bias", true);
  return l;
}

LayerSpec recurrent(LayerKind kind, ConfigMap& m) {
  LayerSpec l = base(kind, m);
  l.units = m.integer("units", 1, kUnits);
  l.bidirectional = m.boolean_or("bidirectional", false);
  l.merge_sum = m.choice_or("merge", {"concat", "sum"}, 0) == 1;
  if (l.merge_sum && !l.bidirectional) m.error("merge", "merge: sum joins the two directions of a bidirectional layer");
  l.bias = m.boolean_or("bias", true);
  return l;
}

void simple(Registry<LayerSpec>& r, const char* kind, LayerKind k, const char* what) {
  r.add(kind, what, [k](ConfigMap& m) { return base(k, m); });
}

Registry<LayerSpec> make_registry() {
  Registry<LayerSpec> r;
  r.add("dense", "fully connected: units, bias, tied (an embedding whose weights it shares); on a sequence it "
                 "acts on every position", [](ConfigMap& m) {
    LayerSpec l = base(LayerKind::Dense, m);
    l.units = m.integer("units", 1, kUnits);
    l.bias = m.boolean_or("bias", true);
    l.tied = m.text_or("tied", "");
    return l;
  });
  r.add("conv2d", "2-D convolution: filters, kernel (k or [kh, kw]), stride, padding same|valid|p|[ph, pw], "
                  "dilation, groups (= channels: depthwise), bias",
        [](ConfigMap& m) { return conv(LayerKind::Conv2d, m); });
  r.add("conv1d", "1-D convolution over a sequence: filters, kernel, stride, padding, dilation, groups, bias",
        [](ConfigMap& m) { return conv(LayerKind::Conv1d, m); });
  for (auto [kind, k] : {std::pair<const char*, LayerKind>{"maxpool", LayerKind::MaxPool},
                         std::pair<const char*, LayerKind>{"avgpool", LayerKind::AvgPool}}) {
    r.add(kind,
          std::string(k == LayerKind::MaxPool ? "max" : "average") +
              " pooling: kernel, stride (default = kernel), padding",
          [k = k](ConfigMap& m) {  // a copy: clang 14 cannot capture a structured binding
            LayerSpec l = base(k, m);
            window_keys(l, m, 2, false);
            return l;
          });
  }
  simple(r, "global_avgpool", LayerKind::GlobalAvgPool, "average over the whole feature map (or all positions)");
  simple(r, "relu", LayerKind::Relu, "rectified linear activation");
  r.add("leaky_relu", "leaky rectifier: slope (default 0.01)", [](ConfigMap& m) {
    LayerSpec l = base(LayerKind::LeakyRelu, m);
    l.slope = m.number_or("slope", 0.0, 1.0, 0.01);
    return l;
  });
  simple(r, "gelu", LayerKind::Gelu, "Gaussian error linear unit (Hendrycks & Gimpel 2016)");
  simple(r, "silu", LayerKind::Silu, "x * sigmoid(x) (swish)");
  simple(r, "swiglu", LayerKind::Swiglu, "silu(first half) * second half of the features (Shazeer 2020)");
  simple(r, "tanh", LayerKind::Tanh, "hyperbolic tangent");
  simple(r, "sigmoid", LayerKind::Sigmoid, "logistic function");
  simple(r, "softmax", LayerKind::Softmax, "softmax over the features of each position");
  r.add("dropout", "random zeroing: rate (default 0.1)", [](ConfigMap& m) {
    LayerSpec l = base(LayerKind::Dropout, m);
    l.rate = m.number_or("rate", 0.0, 0.99, 0.1);
    return l;
  });
  simple(r, "batchnorm", LayerKind::BatchNorm, "batch normalisation (per channel scale and shift)");
  simple(r, "layernorm", LayerKind::LayerNorm, "layer normalisation over the features (Ba et al. 2016)");
  simple(r, "rmsnorm", LayerKind::RmsNorm, "root-mean-square normalisation (Zhang & Sennrich 2019)");
  simple(r, "flatten", LayerKind::Flatten, "reshape to a feature vector");
  simple(r, "add", LayerKind::Add, "elementwise sum of inputs: [a, b, ...] of one shape");
  simple(r, "multiply", LayerKind::Multiply, "elementwise product of inputs: [a, b, ...] of one shape");
  simple(r, "concat", LayerKind::Concat, "features of inputs: [a, b, ...] side by side");
  r.add("split", "features cut into pieces of the given sizes: sizes [a, b, ...]; piece k is the tensor "
                 "\"name:k\" (a view: no work)", [](ConfigMap& m) {
    LayerSpec l = base(LayerKind::Split, m);
    l.sizes = m.integer_list("sizes", 1, kChannels);
    if (m.has("sizes") && m.node()["sizes"].IsSequence() && m.node()["sizes"].size() == 1)
      m.error("sizes", "expected at least two pieces, got one");
    if (l.sizes.size() > static_cast<size_t>(kHeads))
      m.error("sizes", "expected at most " + format_limit(kHeads) + " pieces, got " + std::to_string(l.sizes.size()));
    return l;
  });
  for (auto [kind, k] : {std::pair<const char*, LayerKind>{"reshape", LayerKind::Reshape},
                         std::pair<const char*, LayerKind>{"transpose", LayerKind::Transpose}}) {
    r.add(kind,
          std::string(k == LayerKind::Reshape ? "a view of another shape" : "a copy in another layout") +
              ": to: {channels, height, width} or {sequence, features}",
          [k = k](ConfigMap& m) {  // a copy: clang 14 cannot capture a structured binding
            LayerSpec l = base(k, m);
            target_shape(m, l);
            return l;
          });
  }
  r.add("embedding", "table lookup of token ids: dim, vocab (default: the input's), positions (learned position "
                     "rows), segments (token-type rows)", [](ConfigMap& m) {
    LayerSpec l = base(LayerKind::Embedding, m);
    l.dim = m.integer("dim", 1, kUnits);
    l.vocab = m.integer_or("vocab", 1, kVocab, 0);
    l.positions = m.integer_or("positions", 1, kSequence, 0);
    l.segments = m.integer_or("segments", 1, kVocab, 0);
    return l;
  });
  r.add("attention", "multi-head self-attention with Q, K, V and output projections: heads, kv_heads (grouped-query), "
                     "head_dim, causal, fused (scores stay on chip), bias", [](ConfigMap& m) {
    LayerSpec l = base(LayerKind::Attention, m);
    l.heads = m.integer("heads", 1, kHeads);
    l.kv_heads = m.integer_or("kv_heads", 1, kHeads, 0);
    l.head_dim = m.integer_or("head_dim", 1, kUnits, 0);
    l.causal = m.boolean_or("causal", false);
    l.fused = m.boolean_or("fused", false);
    l.bias = m.boolean_or("bias", true);
    return l;
  });
  r.add("lstm", "long short-term memory over a sequence: units, bidirectional, merge (concat|sum), bias",
        [](ConfigMap& m) { return recurrent(LayerKind::Lstm, m); });
  r.add("gru", "gated recurrent unit over a sequence: units, bidirectional, merge (concat|sum), bias",
        [](ConfigMap& m) { return recurrent(LayerKind::Gru, m); });
  r.add("upsample", "nearest-neighbour upsampling: factor (default 2)", [](ConfigMap& m) {
    LayerSpec l = base(LayerKind::Upsample, m);
    l.factor = m.integer_or("factor", 1, kWindow, 2);
    return l;
  });
  simple(r, "softmax_cross_entropy", LayerKind::SoftmaxCrossEntropy,
         "softmax with cross-entropy loss (last layer; per position on a sequence)");
  simple(r, "sigmoid_cross_entropy", LayerKind::SigmoidCrossEntropy, "sigmoid with binary cross-entropy (last layer)");
  r.add("ctc", "connectionist temporal classification loss (cost only): label_length", [](ConfigMap& m) {
    LayerSpec l = base(LayerKind::Ctc, m);
    l.label_length = m.integer("label_length", 1, kSequence);
    return l;
  });
  r.add("residual", "body: [layers] added to shortcut: [layers] (empty = identity)", [](ConfigMap& m) {
    LayerSpec l = base(LayerKind::Residual, m);
    l.body = parse_layers(m, "body");
    if (m.has("shortcut")) l.shortcut = parse_layers(m, "shortcut");
    return l;
  });
  return r;
}

}  // namespace

const Registry<LayerSpec>& layer_registry() {
  static const Registry<LayerSpec> r = make_registry();
  return r;
}

}  // namespace kp
