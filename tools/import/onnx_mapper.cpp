#include "tools/import/onnx_mapper.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <set>

#include "core/config_error.h"
#include "tools/import/onnx_fusions.h"
#include "tools/import/onnx_node_rules.h"

namespace kp {

namespace {

// Module-like operators are named after their PyTorch module ("layer1.0.conv1"); functional ones
// after the module and the op ("layer1.0.add").
// Weighted ops always come from a module; the others only where the scope's name says so
// ("/relu/Relu" is nn.ReLU, "/layers.0/Relu" a functional relu inside layers.0).
const std::set<std::string> kWeightedOps = {"Conv", "Gemm", "MatMul", "BatchNormalization", "LayerNormalization",
                                            "LSTM", "GRU", "Gather"};
const std::map<std::string, std::string> kModuleWords = {
    {"Relu", "relu"}, {"LeakyRelu", "relu"}, {"MaxPool", "pool"}, {"AveragePool", "pool"}, {"GlobalAveragePool", "pool"},
    {"Dropout", "drop"}, {"Softmax", "softmax"}, {"Sigmoid", "sigmoid"}, {"Tanh", "tanh"}, {"Resize", "up"}, {"Gelu", "gelu"}};

std::string sanitize(const std::string& s) {
  std::string out;
  for (char c : s) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_';
    if (ok) out += c;
    else if (!out.empty() && out.back() != '_') out += '_';
  }
  while (!out.empty() && (out.back() == '_' || out.back() == '.')) out.pop_back();
  if (out.empty() || std::isalpha(static_cast<unsigned char>(out[0])) == 0) out = "t_" + out;
  return out;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// torch.onnx names nodes "/layer1/layer1.0/conv1/Conv": nested scopes repeat their parent's name.
std::string layer_name(const onnx::NodeProto& n, const std::string& op_word) {
  std::vector<std::string> parts;
  size_t start = 0;
  const std::string& name = n.name();
  while (start <= name.size()) {
    const size_t end = std::min(name.find('/', start), name.size());
    if (end > start) parts.push_back(name.substr(start, end - start));
    start = end + 1;
  }
  if (parts.size() < 2)
    return sanitize((name.empty() ? n.output(0) : name) + (op_word.empty() || op_word == "-" ? "" : "." + op_word));
  std::vector<std::string> scope;
  for (size_t k = 0; k + 1 < parts.size(); ++k) {
    if (!scope.empty() && parts[k].rfind(scope.back() + ".", 0) == 0) scope.back() = parts[k];
    else scope.push_back(parts[k]);
  }
  std::string path;
  for (const std::string& p : scope) path += (path.empty() ? "" : ".") + p;
  const auto word = kModuleWords.find(n.op_type());
  const bool module = op_word == "-" || (op_word.empty() && (kWeightedOps.count(n.op_type()) ||
                                                             (word != kModuleWords.end() &&
                                                              lower(scope.back()).find(word->second) != std::string::npos)));
  return sanitize(module ? path : path + "." + (op_word.empty() ? lower(parts.back()) : op_word));
}

}  // namespace

MapperState::MapperState(const OnnxGraph& graph) : g(graph), fusions(find_fusions(graph)) {
  for (const Fusion& f : fusions)
    for (int n : f.nodes) fusion_at[n] = &f;
  names.insert("input");
}

std::string MapperState::fail(int i, const std::string& why) {
  if (!net.error) {
    const onnx::NodeProto& n = g.node(i);
    const int line = static_cast<int>(net.summary.size()) + 1;  // this node's line, written next
    char text[64];
    std::snprintf(text, sizeof text, "%d", line);
    net.error = Diagnostic{g.path(), 0, 0, "",
                           "node " + std::to_string(i) + " \"" + n.name() + "\" (op " + n.op_type() + "): " + why +
                               " (line " + text + " of the summary)"};
  }
  return "UNSUPPORTED: " + why;
}

std::optional<Ref> MapperState::ref(const std::string& t) const {
  const auto it = refs.find(t);
  if (it == refs.end()) return std::nullopt;
  return it->second;
}

std::string MapperState::unique_name(const onnx::NodeProto& n, const std::string& op_word) {
  const std::string base = layer_name(n, op_word);
  std::string name = base;
  for (int k = 2; names.count(name); ++k) name = base + "_" + std::to_string(k);
  names.insert(name);
  return name;
}

std::string MapperState::emit(int i, ImportedLayer layer, const std::vector<Ref>& inputs, const std::string& out,
                              const TensorView& view) {
  const onnx::NodeProto& n = g.node(i);
  if (layer.name.empty()) layer.name = unique_name(n);
  for (const Ref& r : inputs) layer.inputs.push_back(r.kp);
  if (layer.comment.empty()) layer.comment = "node " + std::to_string(i) + " " + n.op_type() + " " + n.name();
  net.parameters += layer.parameters;
  refs[out] = Ref{layer.name, view};
  std::string text = layer.kind;
  for (const auto& [k, v] : layer.keys) text += " " + k + " " + v;
  if (layer.parameters > 0) text += " (" + std::to_string(layer.parameters) + " parameters)";
  text += " -> " + view.text();
  net.layers.push_back(std::move(layer));
  return text;
}

void MapperState::alias(const std::string& out, const Ref& r) { refs[out] = r; }

int64_t MapperState::weights(int i, const std::vector<std::string>& tensors, std::string* problem) const {
  int64_t total = 0;
  for (const std::string& t : tensors) {
    if (t.empty()) continue;
    const int64_t n = g.numel(t);
    if (n < 0) {
      *problem = "the shape of weight \"" + t + "\" is unknown";
      return -1;
    }
    total += n;
  }
  (void)i;
  return total;
}

namespace {

void set_input(MapperState& s) {
  const OnnxGraph& g = s.g;
  const std::vector<int64_t> d = g.shape(g.input_name());
  const int type = g.input_elem_type();
  auto x = [](int64_t v) { return std::to_string(v); };
  for (int64_t v : d)
    if (v <= 0) throw ConfigError(g.path(), "network input \"" + g.input_name() + "\" has an unknown dimension: "
                                            "export with fixed shapes (no dynamic_axes)");
  // Parameters are float; an integer or boolean graph input after the first is more data (ids, a mask).
  for (int k = 1; k < g.graph().input_size(); ++k) {
    const int t = g.graph().input(k).type().tensor_type().elem_type();
    if (t != onnx::TensorProto::FLOAT && t != onnx::TensorProto::FLOAT16 && t != onnx::TensorProto::BFLOAT16 &&
        t != onnx::TensorProto::DOUBLE)
      throw ConfigError(g.path(), "graph input \"" + g.graph().input(k).name() +
                                      "\" is a second data input (not float, so no weight): a kneepoint workload has "
                                      "one network input");
  }
  TensorView v;
  if ((type == onnx::TensorProto::INT64 || type == onnx::TensorProto::INT32) && d.size() == 2) {
    int64_t vocab = 0;
    for (int c : g.consumers(g.input_name()))
      if (g.node(c).op_type() == "Gather" && g.is_weight(g.node(c).input(0)) && !g.shape(g.node(c).input(0)).empty())
        vocab = g.shape(g.node(c).input(0))[0];
    if (vocab <= 0)
      throw ConfigError(g.path(), "network input \"" + g.input_name() + "\" holds token ids but no embedding (Gather) reads it");
    v = TensorView::tokens(d[1]);
    s.net.input_yaml = "{sequence: " + x(d[1]) + ", vocab: " + x(vocab) + "}";
  } else if (d.size() == 4) {
    v = TensorView::image(d[1], d[2], d[3]);
    s.net.images = true;
    s.net.input_yaml = "{channels: " + x(d[1]) + ", height: " + x(d[2]) + ", width: " + x(d[3]) + "}";
  } else if (d.size() == 3) {
    v = TensorView::sequence(d[1], d[2]);
    s.net.input_yaml = "{sequence: " + x(d[1]) + ", features: " + x(d[2]) + "}";
  } else if (d.size() == 2) {
    // A flat feature vector is a 1 x 1 image of F channels (kneepoint inputs are images or sequences).
    v = TensorView::image(d[1], 1, 1);
    s.net.images = true;
    s.net.input_yaml = "{channels: " + x(d[1]) + ", height: 1, width: 1}";
  } else {
    throw ConfigError(g.path(), "network input \"" + g.input_name() + "\" has rank " + x(static_cast<int64_t>(d.size())) +
                                    ": expected [N, C, H, W] images, [N, S] token ids or [N, S, F] features");
  }
  s.alias(g.input_name(), Ref{"input", v});
}

// The graph's output becomes the loss input: a final softmax or sigmoid is the loss itself.
void finish(MapperState& s) {
  const OnnxGraph& g = s.g;
  if (s.net.error) return;
  if (g.graph().output_size() != 1) {
    s.net.error = Diagnostic{g.path(), 0, 0, "", "the graph has " + std::to_string(g.graph().output_size()) +
                                                     " outputs: a kneepoint workload has one (the loss input)"};
    return;
  }
  const std::optional<Ref> out = s.ref(g.graph().output(0).name());
  if (!out) {
    s.net.error = Diagnostic{g.path(), 0, 0, "", "the graph output \"" + g.graph().output(0).name() + "\" is not computed by a mapped layer"};
    return;
  }
  if (s.net.images) s.net.classes = out->view.features();
  ImportedLayer* last = s.net.layers.empty() ? nullptr : &s.net.layers.back();
  if (last && last->name == out->kp && (last->kind == "softmax" || last->kind == "sigmoid")) {
    last->kind = last->kind == "softmax" ? "softmax_cross_entropy" : "sigmoid_cross_entropy";
    last->keys.clear();
    return;
  }
  ImportedLayer loss;
  loss.kind = "softmax_cross_entropy";
  loss.name = "loss";
  if (!last || last->name != out->kp) loss.inputs = {out->kp};
  loss.comment = "PLACEHOLDER: the ONNX graph has no loss; softmax cross-entropy over its output assumed";
  s.net.loss_note = loss.comment;
  s.net.layers.push_back(loss);
}

std::string line(const OnnxGraph& g, int i, const std::string& text) {
  char head[160];
  const onnx::NodeProto& n = g.node(i);
  std::snprintf(head, sizeof head, "%5d  %-18s %-40s ", i, n.op_type().c_str(), n.name().c_str());
  return head + text;
}

}  // namespace

ImportedNetwork import_onnx(const OnnxGraph& g, const std::string& name) {
  MapperState s(g);
  s.net.name = name;
  s.net.source = g.path();
  s.net.producer = g.model().producer_name().empty() ? "not named"
                                                      : g.model().producer_name() + " " + g.model().producer_version();
  set_input(s);
  s.net.summary.push_back(g.path() + ": " + std::to_string(g.node_count()) + " ONNX nodes (producer " + s.net.producer +
                          ", IR version " + std::to_string(g.model().ir_version()) + ")");
  char head[160];
  std::snprintf(head, sizeof head, "%5s  %-18s %-40s %s", "node", "op", "name", "kneepoint layer (or why none)");
  s.net.summary.push_back(head);
  for (int i = 0; i < g.node_count(); ++i) {
    const onnx::NodeProto& n = g.node(i);
    std::string text;
    const auto fused = s.fusion_at.find(i);
    bool all_static = true, all_weight = true;
    for (const std::string& o : n.output()) {
      if (o.empty()) continue;
      all_static = all_static && g.tensor_class(o) == TensorClass::Static;
      all_weight = all_weight && g.tensor_class(o) == TensorClass::Weight;
    }
    if (s.net.error) text = "not mapped (an earlier node failed)";
    else if (fused != s.fusion_at.end() && fused->second->nodes.back() != i)
      text = "part of " + fused->second->kind + " (node " + std::to_string(fused->second->nodes.back()) + ")";
    else if (fused != s.fusion_at.end()) text = map_fusion(s, i, *fused->second);
    else if (all_static) text = "shape arithmetic (no layer)";
    else if (all_weight) text = "weight transform (no layer)";
    else text = map_node(s, i);
    s.net.summary.push_back(line(g, i, text));
  }
  finish(s);
  return s.net;
}

}  // namespace kp
