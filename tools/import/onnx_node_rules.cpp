// Dense layers, activations, norms, elementwise merges, embeddings, recurrent layers, re-layouts
// and the fusions of onnx_fusions.h (the window operators are in onnx_window_rules.cpp).
#include <algorithm>
#include <cstdio>

#include "tools/import/onnx_node_rules.h"

namespace kp {

namespace {

const std::map<std::string, std::string> kUnary = {
    {"Relu", "relu"}, {"Sigmoid", "sigmoid"}, {"Tanh", "tanh"}, {"Gelu", "gelu"}, {"Softmax", "softmax"}};
const std::set<std::string> kRelayout = {"Reshape", "Transpose", "Squeeze", "Unsqueeze", "Flatten", "Identity", "Cast"};

std::string number(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

TensorView with_features(const TensorView& v, int64_t f) {
  if (v.kind == TensorView::Sequence) return TensorView::sequence(v.s, f);
  return TensorView::vector(f);
}

std::string unary(MapperState& s, int i, const std::string& kind, const std::string& in, const std::string& out,
                  std::vector<std::pair<std::string, std::string>> keys = {}, int64_t params = 0,
                  std::string name = "") {
  const std::optional<Ref> x = s.ref(in);
  if (!x) return s.fail(i, "its input is not a mapped tensor");
  ImportedLayer l;
  l.name = std::move(name);
  l.kind = kind;
  l.keys = std::move(keys);
  l.parameters = params;
  return s.emit(i, l, {*x}, out, x->view);
}

// A dense layer; on an image it is preceded by the flatten kneepoint needs there.
std::string dense(MapperState& s, int i, const std::string& in, const std::string& out, int64_t units, bool bias,
                  int64_t params, std::string name = "") {
  std::optional<Ref> x = s.ref(in);
  if (!x) return s.fail(i, "its input is not a mapped tensor");
  std::string text;
  if (x->view.kind == TensorView::Image) {
    ImportedLayer f;
    f.kind = "flatten";
    f.name = s.unique_name(s.g.node(i), "flatten");
    const TensorView v = TensorView::vector(x->view.c * x->view.h * x->view.w);
    text = s.emit(i, f, {*x}, out + "#flat", v) + "; ";
    x = s.ref(out + "#flat");
  }
  if (x->view.kind != TensorView::Sequence && x->view.kind != TensorView::Vector)
    return s.fail(i, "a dense layer needs a vector or a sequence, got " + x->view.text());
  ImportedLayer l;
  l.name = std::move(name);
  l.kind = "dense";
  l.keys = {{"units", std::to_string(units)}, {"bias", bias ? "true" : "false"}};
  l.parameters = params;
  return text + s.emit(i, l, {*x}, out, with_features(x->view, units));
}

std::string map_gemm(MapperState& s, int i) {
  const OnnxGraph& g = s.g;
  const onnx::NodeProto& n = g.node(i);
  const std::vector<int64_t> b = g.shape(n.input(1));
  if (attr_int(n, "transA", 0) != 0 || b.size() != 2) return s.fail(i, "expected activations x weight (transA = 0, 2-D B)");
  const bool bias = n.input_size() > 2 && g.is_weight(n.input(2));
  std::string problem;
  const int64_t params = s.weights(i, {n.input(1), bias ? n.input(2) : ""}, &problem);
  if (params < 0) return s.fail(i, problem);
  return dense(s, i, n.input(0), n.output(0), attr_int(n, "transB", 0) ? b[0] : b[1], bias, params);
}

std::string relayout(MapperState& s, int i) {
  const OnnxGraph& g = s.g;
  const onnx::NodeProto& n = g.node(i);
  const std::optional<Ref> x = s.ref(n.input(0));
  if (!x) return s.fail(i, "its input is not a mapped tensor");
  const std::vector<int64_t> o = g.shape(n.output(0));
  const int64_t batch = g.batch();
  const bool known = !o.empty() && std::none_of(o.begin(), o.end(), [](int64_t d) { return d < 0; });
  ImportedLayer l;
  auto x_of = [](int64_t v) { return std::to_string(v); };
  if (n.op_type() == "Flatten" || (known && o.size() == 2 && o[0] == batch && !x->view.matches(o, batch))) {
    if (x->view.kind == TensorView::Vector) {
      s.alias(n.output(0), *x);
      return "re-layout (no layer)";
    }
    int64_t f = 1;
    for (size_t d = 1; d < o.size(); ++d) f *= o[d];
    l.kind = "flatten";
    return s.emit(i, l, {*x}, n.output(0), TensorView::vector(f));
  }
  if (!known || x->view.matches(o, batch) || o[0] != batch) {
    s.alias(n.output(0), *x);
    return "re-layout (no layer)";
  }
  if (o.size() == 4 && x->view.kind != TensorView::Image) {
    l.kind = "reshape";
    l.keys = {{"to", "{channels: " + x_of(o[1]) + ", height: " + x_of(o[2]) + ", width: " + x_of(o[3]) + "}"}};
    return s.emit(i, l, {*x}, n.output(0), TensorView::image(o[1], o[2], o[3]));
  }
  if (o.size() == 3 && (x->view.kind == TensorView::Image || x->view.kind == TensorView::Vector)) {
    l.kind = "reshape";
    l.keys = {{"to", "{sequence: " + x_of(o[1]) + ", features: " + x_of(o[2]) + "}"}};
    return s.emit(i, l, {*x}, n.output(0), TensorView::sequence(o[1], o[2]));
  }
  s.alias(n.output(0), *x);
  return "re-layout (no layer)";
}

std::string elementwise(MapperState& s, int i) {
  const OnnxGraph& g = s.g;
  const onnx::NodeProto& n = g.node(i);
  const std::vector<std::string> acts = g.activation_inputs(i);
  for (const std::string& in : n.input())
    if (g.is_weight(in)) return s.fail(i, "a learned tensor combined with activations outside a dense, convolution or norm layer");
  if (acts.size() == 1) {
    const std::optional<Ref> x = s.ref(acts[0]);
    if (!x) return s.fail(i, "its input is not a mapped tensor");
    s.alias(n.output(0), *x);
    return "scaling or shift by a constant (no layer)";
  }
  if (acts.size() != 2 || (n.op_type() != "Add" && n.op_type() != "Mul"))
    return s.fail(i, n.op_type() + " of two activations is not a kneepoint layer (add and multiply are)");
  const std::optional<Ref> a = s.ref(acts[0]), b = s.ref(acts[1]);
  if (!a || !b) return s.fail(i, "an input is not a mapped tensor");
  ImportedLayer l;
  l.kind = n.op_type() == "Add" ? "add" : "multiply";
  l.explicit_inputs = true;
  return s.emit(i, l, {*a, *b}, n.output(0), a->view);
}

std::string concat(MapperState& s, int i) {
  const OnnxGraph& g = s.g;
  const onnx::NodeProto& n = g.node(i);
  std::vector<Ref> in;
  for (const std::string& t : n.input()) {
    const std::optional<Ref> r = g.is_activation(t) ? s.ref(t) : std::nullopt;
    if (!r) return s.fail(i, "concat of a constant or weight tensor is not expressible");
    in.push_back(*r);
  }
  const int64_t rank = static_cast<int64_t>(g.shape(n.output(0)).size());
  int64_t axis = attr_int(n, "axis", 1);
  if (axis < 0) axis += rank;
  TensorView v = in[0].view;
  const bool channels = v.kind == TensorView::Image && axis == 1;
  const bool features = (v.kind == TensorView::Sequence || v.kind == TensorView::Vector) && axis == rank - 1;
  if (!channels && !features) return s.fail(i, "concat along an axis other than channels or features");
  int64_t total = 0;
  for (const Ref& r : in) total += r.view.features();
  if (v.kind == TensorView::Image) v.c = total;
  else v.f = total;
  ImportedLayer l;
  l.kind = "concat";
  l.explicit_inputs = true;
  return s.emit(i, l, in, n.output(0), v);
}

std::string recurrent(MapperState& s, int i) {
  const OnnxGraph& g = s.g;
  const onnx::NodeProto& n = g.node(i);
  const std::optional<Ref> x = s.ref(n.input(0));
  if (!x || x->view.kind != TensorView::Sequence) return s.fail(i, "expected a sequence input");
  for (int k = 1; k < n.output_size(); ++k)
    if (!n.output(k).empty() && !g.consumers(n.output(k)).empty())
      return s.fail(i, "its final state is used; kneepoint recurrent layers output the sequence Y only");
  const int64_t units = attr_int(n, "hidden_size", 0);
  const bool bidir = attr_string(n, "direction", "forward") == "bidirectional";
  const bool bias = n.input_size() > 3 && !n.input(3).empty();
  std::string problem;
  const int64_t params = s.weights(i, {n.input(1), n.input(2), bias ? n.input(3) : ""}, &problem);
  if (params < 0) return s.fail(i, problem);
  ImportedLayer l;
  l.kind = n.op_type() == "LSTM" ? "lstm" : "gru";
  l.keys = {{"units", std::to_string(units)}, {"bidirectional", bidir ? "true" : "false"}, {"bias", bias ? "true" : "false"}};
  l.parameters = params;
  return s.emit(i, l, {*x}, n.output(0), TensorView::sequence(x->view.s, (bidir ? 2 : 1) * units));
}

std::string embedding(MapperState& s, int i) {
  const OnnxGraph& g = s.g;
  const onnx::NodeProto& n = g.node(i);
  const std::optional<Ref> ids = s.ref(n.input(1));
  const std::vector<int64_t> w = g.shape(n.input(0));
  if (!g.is_weight(n.input(0)) || !ids || ids->view.kind != TensorView::Tokens || w.size() != 2)
    return s.fail(i, "Gather is supported as an embedding: a [vocab, dim] weight indexed by the token ids");
  ImportedLayer l;
  l.kind = "embedding";
  l.keys = {{"vocab", std::to_string(w[0])}, {"dim", std::to_string(w[1])}};
  l.parameters = w[0] * w[1];
  return s.emit(i, l, {*ids}, n.output(0), TensorView::sequence(ids->view.s, w[1]));
}

std::string norm(MapperState& s, int i, const std::string& kind, std::vector<std::string> weights) {
  std::string problem;
  const int64_t params = s.weights(i, weights, &problem);
  if (params < 0) return s.fail(i, problem);
  return unary(s, i, kind, s.g.node(i).input(0), s.g.node(i).output(0), {}, params);
}

}  // namespace

std::string map_node(MapperState& s, int i) {
  const OnnxGraph& g = s.g;
  const onnx::NodeProto& n = g.node(i);
  const std::string& op = n.op_type();
  auto in = [&](int k) { return k < n.input_size() ? n.input(k) : std::string(); };
  if (kUnary.count(op)) return unary(s, i, kUnary.at(op), n.input(0), n.output(0));
  if (op == "LeakyRelu")
    return unary(s, i, "leaky_relu", n.input(0), n.output(0), {{"slope", number(attr_float(n, "alpha", 0.01f))}});
  if (op == "Dropout") {
    const auto ratio = g.constant(in(1));
    const double rate = ratio && !ratio->empty() ? (*ratio)[0] : attr_float(n, "ratio", 0.5f);
    if (rate == 0) {  // nn.Dropout(0.0) exports a Dropout that does nothing
      const std::optional<Ref> x = s.ref(n.input(0));
      if (!x) return s.fail(i, "its input is not a mapped tensor");
      s.alias(n.output(0), *x);
      return "dropout rate 0 (no layer)";
    }
    return unary(s, i, "dropout", n.input(0), n.output(0), {{"rate", number(rate)}});
  }
  if (op == "Conv") return map_conv(s, i);
  if (op == "MaxPool" || op == "AveragePool") return map_pool(s, i);
  if (op == "Pad") return map_pad(s, i);
  if (op == "Resize" || op == "Upsample") return map_resize(s, i);
  if (op == "GlobalAveragePool") {
    const std::optional<Ref> x = s.ref(n.input(0));
    if (!x || x->view.kind != TensorView::Image) return s.fail(i, "expected an image input");
    ImportedLayer l;
    l.kind = "global_avgpool";
    return s.emit(i, l, {*x}, n.output(0), TensorView::vector(x->view.c));
  }
  if (op == "BatchNormalization") return norm(s, i, "batchnorm", {in(1), in(2)});  // mean, var: statistics
  if (op == "LayerNormalization") return norm(s, i, "layernorm", {in(1), in(2)});
  if (op == "Gemm") return map_gemm(s, i);
  if (op == "MatMul") {
    if (!is_weight_product(g, i))
      return s.fail(i, "a product of two activations outside a recognised attention block");
    std::string problem;
    const int64_t params = s.weights(i, {n.input(1)}, &problem);
    if (params < 0) return s.fail(i, problem);
    return dense(s, i, n.input(0), n.output(0), g.shape(n.input(1))[1], false, params);
  }
  if (op == "Add" || op == "Mul" || op == "Sub" || op == "Div") return elementwise(s, i);
  if (op == "Concat") return concat(s, i);
  if (op == "Split") return map_split(s, i);
  if (op == "Gather") return embedding(s, i);
  if (op == "LSTM" || op == "GRU") return recurrent(s, i);
  if (kRelayout.count(op)) return relayout(s, i);
  return s.fail(i, "operator " + op + " is not supported by kneepoint import onnx");
}

std::string map_fusion(MapperState& s, int i, const Fusion& f) {
  std::string problem;
  const int64_t params = s.weights(i, f.weights, &problem);
  if (params < 0) return s.fail(i, problem);
  if (f.kind == "gelu" || f.kind == "silu")
    return unary(s, i, f.kind, f.input, f.output, {}, 0, s.unique_name(s.g.node(f.nodes.back()), f.kind));
  if (f.kind == "dense")
    return dense(s, i, f.input, f.output, f.units, f.bias, params, s.unique_name(s.g.node(f.nodes.front())));
  const std::optional<Ref> x = s.ref(f.input);
  if (!x || x->view.kind != TensorView::Sequence) return s.fail(i, "attention expects a sequence input");
  ImportedLayer l;
  for (int k : f.nodes)
    if (s.g.node(k).op_type() == "Softmax") l.name = s.unique_name(s.g.node(k), "-");
  l.kind = "attention";
  l.keys = {{"heads", std::to_string(f.heads)},       {"kv_heads", std::to_string(f.kv_heads)},
            {"head_dim", std::to_string(f.head_dim)}, {"causal", f.causal ? "true" : "false"},
            {"fused", "false"},                       {"bias", f.bias ? "true" : "false"}};
  l.parameters = params;
  l.comment = "nodes " + std::to_string(f.nodes.front()) + ".." + std::to_string(f.nodes.back()) + " (" +
              std::to_string(f.nodes.size()) + " nodes) multi-head attention";
  std::string text = s.emit(i, l, {*x}, f.output, x->view);
  if (!f.note.empty()) text += " (" + f.note + ")";
  return text;
}

}  // namespace kp
