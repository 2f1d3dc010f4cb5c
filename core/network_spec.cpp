#include "core/network_spec.h"

#include <map>
#include <stdexcept>

#include "core/layer_shapes.h"
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
    case LayerKind::Add: return "add";
    case LayerKind::Multiply: return "multiply";
    case LayerKind::Concat: return "concat";
    case LayerKind::Reshape: return "reshape";
    case LayerKind::Transpose: return "transpose";
    case LayerKind::Split: return "split";
    case LayerKind::LeakyRelu: return "leaky_relu";
    case LayerKind::Gelu: return "gelu";
    case LayerKind::Silu: return "silu";
    case LayerKind::Swiglu: return "swiglu";
    case LayerKind::Tanh: return "tanh";
    case LayerKind::Sigmoid: return "sigmoid";
    case LayerKind::Softmax: return "softmax";
    case LayerKind::Dropout: return "dropout";
    case LayerKind::LayerNorm: return "layernorm";
    case LayerKind::RmsNorm: return "rmsnorm";
    case LayerKind::Embedding: return "embedding";
    case LayerKind::Attention: return "attention";
    case LayerKind::Lstm: return "lstm";
    case LayerKind::Gru: return "gru";
    case LayerKind::Conv1d: return "conv1d";
    case LayerKind::Upsample: return "upsample";
    case LayerKind::SigmoidCrossEntropy: return "sigmoid_cross_entropy";
    case LayerKind::Ctc: return "ctc";
  }
  throw std::logic_error("unknown LayerKind");
}

std::string shape_text(const Shape& s) {
  if (s.vocab > 0) return "sequence of " + std::to_string(s.h) + " token ids (vocab " + std::to_string(s.vocab) + ")";
  if (s.sequence) return "sequence " + std::to_string(s.h) + " x " + std::to_string(s.c) + " features";
  return std::to_string(s.c) + "x" + std::to_string(s.h) + "x" + std::to_string(s.w);
}

bool is_loss(LayerKind k) {
  return k == LayerKind::SoftmaxCrossEntropy || k == LayerKind::SigmoidCrossEntropy || k == LayerKind::Ctc;
}

namespace {

std::string where_text(const LayerSpec& l) {
  std::string w = "layer \"" + l.name + "\" (" + layer_kind_name(l.kind) + ")";
  if (l.at.line > 0) w += " at line " + std::to_string(l.at.line);
  return w;
}

// An error at the layer's own position where it has one.
[[noreturn]] void layer_error(const LayerSpec& l, const std::string& message) {
  if (!l.at.origin.empty())
    throw ConfigError({Diagnostic{l.at.origin, l.at.line, l.at.col, l.at.key,
                                  "layer \"" + l.name + "\" (" + layer_kind_name(l.kind) + "): " + message}});
  throw std::invalid_argument(where_text(l) + ": " + message);
}

struct Tensor {
  int64_t producer = -1;  // index into the resolved layers; -1 = the network input
  Shape shape;
  const LayerSpec* spec = nullptr;  // null for the network input
  bool read = false;
  int32_t port = 0;  // which output of a split
};

class Resolver {
 public:
  Resolver(const NetworkSpec& spec, ResolvedNetwork& net) : m_net(net) {
    for (const LayerSpec& l : spec.layers) m_all[l.name] = &l;
    if (spec.fields.empty()) {
      m_tensors["input"] = Tensor{-1, spec.input, nullptr, false};
      m_last = "input";
    }
    for (size_t i = 0; i < spec.fields.size(); ++i)
      m_tensors[spec.field_names[i]] = Tensor{-1, spec.fields[i], nullptr, false};
    if (!spec.fields.empty()) m_last = spec.field_names.front();
  }

  void top(const std::vector<LayerSpec>& specs) {
    for (const LayerSpec& l : specs) {
      if (l.kind == LayerKind::Residual) residual(l);
      else m_last = layer(l, m_last, m_net.layers);
    }
    auto split = m_splits.find(m_last);
    if (split != m_splits.end())
      layer_error(*split->second, "a network cannot end with a split (its pieces must be read by later layers)");
    // Losses end branches (a detector has one per scale); any other unread output is a mistake.
    for (const auto& [name, t] : m_tensors)
      if (!t.read && name != m_last && t.spec && !is_loss(t.spec->kind))
        layer_error(*t.spec, "its output \"" + name + "\" is never read (the network ends at \"" + m_last + "\")");
  }

  const Shape& last_shape() const { return m_tensors.at(m_last).shape; }

 private:
  // Resolves one layer reading `prev` unless it names its inputs; returns its output's name.
  std::string layer(const LayerSpec& l, const std::string& prev, std::vector<ResolvedLayer>& out) {
    ResolvedLayer r;
    r.spec = l;
    std::vector<Shape> shapes;
    std::vector<std::string> names = l.inputs.empty() ? std::vector<std::string>{prev} : l.inputs;
    for (const std::string& n : names) {
      Tensor& t = lookup(l, n);
      t.read = true;
      shapes.push_back(t.shape);
      r.inputs.push_back(t.producer);
      r.ports.push_back(t.port);
    }
    try {
      r.out = layer_shape(l, shapes, names, r.params);
    } catch (const std::invalid_argument& e) {
      layer_error(l, e.what());
    }
    if (!l.tied.empty()) tie(l);
    r.in = shapes.front();
    r.extra_in.assign(shapes.begin() + 1, shapes.end());
    account(l, r);
    const int64_t index = static_cast<int64_t>(out.size());
    if (l.kind == LayerKind::Split) {
      // Its pieces are the tensors; the bare name stays undefined so that a reader must pick one.
      for (size_t k = 0; k < l.sizes.size(); ++k)
        define(l, l.name + ":" + std::to_string(k),
               Tensor{index, split_piece(l, r.in, k), &l, false, static_cast<int32_t>(k)});
      m_splits[l.name] = &l;
    } else {
      define(l, l.name, Tensor{index, r.out, &l, false});
    }
    out.push_back(std::move(r));
    return l.name;
  }

  // The tensor `n` that layer l reads: a layer's name, a split's "name:k", or a network input.
  Tensor& lookup(const LayerSpec& l, const std::string& n) {
    auto it = m_tensors.find(n);
    if (it != m_tensors.end()) return it->second;
    const size_t colon = n.rfind(':');
    const std::string base = colon == std::string::npos ? n : n.substr(0, colon);
    auto split = m_splits.find(base);
    if (split != m_splits.end()) {
      const LayerSpec& s = *split->second;
      const std::string range = "\"" + base + ":0\" .. \"" + base + ":" + std::to_string(s.sizes.size() - 1) + "\"";
      if (colon == std::string::npos)
        layer_error(l, "input \"" + n + "\" is " + where_text(s) + ", which has " + std::to_string(s.sizes.size()) +
                           " outputs: read one of " + range + (l.inputs.empty() ? " with inputs: [...]" : ""));
      layer_error(l, "input \"" + n + "\" is out of range: " + where_text(s) + " has the outputs " + range);
    }
    if (colon != std::string::npos && m_tensors.count(base))
      layer_error(l, "input \"" + n + "\": \"" + base + "\" has one output (\":k\" names an output of a split)");
    auto later = m_all.find(base);
    if (later != m_all.end())
      layer_error(l, "input \"" + n + "\" is defined only later, by " + where_text(*later->second) +
                         " (a cycle, or layers out of order)");
    layer_error(l, "input \"" + n +
                       "\" is not a tensor of this network (a dangling input; known: \"input\" and the names of "
                       "earlier layers)");
  }

  // The plausibility limits of one resolved layer and of the running parameter total.
  void account(const LayerSpec& l, const ResolvedLayer& r) {
    if (r.out.elements() > limits::kTensorElements)
      layer_error(l, "output of " + std::to_string(r.out.elements()) + " elements per sample, expected at most " +
                         format_limit(limits::kTensorElements));
    m_net.params += r.params;
    if (m_net.params > limits::kParams)
      layer_error(l, "the network has more than " + format_limit(limits::kParams) + " parameters");
  }

  void tie(const LayerSpec& l) {
    auto it = m_tensors.find(l.tied);
    if (it == m_tensors.end() || !it->second.spec || it->second.spec->kind != LayerKind::Embedding)
      layer_error(l, "tied: \"" + l.tied + "\" is not an earlier embedding layer");
    const LayerSpec& e = *it->second.spec;
    if (e.vocab > 0 && e.vocab != l.units)
      layer_error(l, "tied to \"" + e.name + "\" of vocab " + std::to_string(e.vocab) + ", but units is " +
                         std::to_string(l.units));
  }

  // Names written in a file are the graph's tensor names and must be unique; a network built in
  // code (no positions, a plain chain) may reuse one, the later layer's output shadowing it.
  void define(const LayerSpec& l, const std::string& name, const Tensor& t) {
    auto [it, fresh] = m_tensors.emplace(name, t);
    if (!fresh && l.at.origin.empty()) {
      it->second = t;
      return;
    }
    if (!fresh)
      layer_error(l, "the name \"" + name + "\" is already the output of " +
                         (it->second.spec ? where_text(*it->second.spec) : std::string("the network input")));
  }

  // A residual block as before: its body and shortcut chain inside the block.
  void residual(const LayerSpec& l) {
    if (!l.inputs.empty()) layer_error(l, "a residual block reads the previous layer; use add with inputs instead");
    Tensor& read = lookup(l, m_last);
    read.read = true;
    const Tensor block_in = read;
    const int64_t start = static_cast<int64_t>(m_net.layers.size());
    Shape shape = block_in.shape;
    chain(l.body, shape, m_net.layers);
    ResolvedLayer join;
    join.spec = l;
    join.spec.body.clear();
    join.spec.shortcut.clear();
    join.block_start = start;
    Shape short_shape = block_in.shape;
    chain(l.shortcut, short_shape, join.shortcut);
    if (!(short_shape == shape))
      layer_error(l, "body gives " + shape_text(shape) + " but the shortcut gives " + shape_text(short_shape));
    join.in = shape;
    join.out = shape;
    // Its reads stay implicit (inputs empty): the join's backward is the block's gradient sum.
    define(l, l.name, Tensor{static_cast<int64_t>(m_net.layers.size()), shape, &l, false});
    m_net.layers.push_back(std::move(join));
    m_last = l.name;
  }

  // Layers inside a residual block: a plain chain whose names are local to the block.
  void chain(const std::vector<LayerSpec>& specs, Shape& shape, std::vector<ResolvedLayer>& out) {
    for (const LayerSpec& l : specs) {
      if (l.kind == LayerKind::Residual) layer_error(l, "residual blocks do not nest");
      if (!l.inputs.empty()) layer_error(l, "layers inside a residual block read the previous one (no inputs:)");
      if (l.kind == LayerKind::Split)
        layer_error(l, "a split inside a residual block: its pieces are read by name, which a block's chain cannot");
      ResolvedLayer r;
      r.spec = l;
      r.in = shape;
      try {
        r.out = layer_shape(l, {shape}, {"previous"}, r.params);
      } catch (const std::invalid_argument& e) {
        layer_error(l, e.what());
      }
      account(l, r);
      shape = r.out;
      out.push_back(std::move(r));
    }
  }

  ResolvedNetwork& m_net;
  std::map<std::string, const LayerSpec*> m_all;
  std::map<std::string, Tensor> m_tensors;
  std::map<std::string, const LayerSpec*> m_splits;  // resolved splits, by their bare name
  std::string m_last;
};

}  // namespace

ResolvedNetwork resolve_network(const NetworkSpec& spec) {
  ResolvedNetwork net;
  net.input = spec.input;
  net.fields = static_cast<int64_t>(spec.fields.size());
  Resolver r(spec, net);
  r.top(spec.layers);
  const Shape& last = r.last_shape();
  if (spec.classes > 0 && !last.sequence && last.elements() != spec.classes)
    throw std::invalid_argument("the network ends with " + std::to_string(last.elements()) +
                                " outputs but the workload has " + std::to_string(spec.classes) + " classes");
  return net;
}

}  // namespace kp
