#include "tools/import/onnx_graph.h"

#include <onnx/defs/schema.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <set>

#include "core/config_error.h"
#include "tools/import/onnx_infer_isolated.h"

namespace kp {

namespace {

const std::set<std::string> kSameShapeOps = {
    "Relu", "Sigmoid", "Tanh", "Erf", "LeakyRelu", "Gelu", "Identity", "Cast", "Softmax", "Dropout",
    "BatchNormalization", "LayerNormalization", "Sqrt", "Neg", "Exp"};
const std::set<std::string> kBroadcastOps = {"Add", "Sub", "Mul", "Div", "Pow", "Where"};

std::vector<int64_t> dims_of(const onnx::TypeProto& type) {
  std::vector<int64_t> dims;
  if (!type.has_tensor_type() || !type.tensor_type().has_shape()) return dims;
  for (const auto& d : type.tensor_type().shape().dim()) dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
  return dims;
}

bool known(const std::vector<int64_t>& s) {
  return !s.empty() && std::none_of(s.begin(), s.end(), [](int64_t d) { return d < 0; });
}

// Output size of a convolution or pooling window along one axis (ONNX Conv/MaxPool semantics).
int64_t window_out(int64_t in, int64_t k, int64_t stride, int64_t dilation, int64_t pads, bool ceil_mode) {
  const int64_t span = in + pads - dilation * (k - 1) - 1;
  return (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
}

}  // namespace

int64_t attr_int(const onnx::NodeProto& n, const std::string& name, int64_t fallback) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return a.i();
  return fallback;
}

float attr_float(const onnx::NodeProto& n, const std::string& name, float fallback) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return a.f();
  return fallback;
}

std::string attr_string(const onnx::NodeProto& n, const std::string& name, const std::string& fallback) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return a.s();
  return fallback;
}

std::vector<int64_t> attr_ints(const onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return {a.ints().begin(), a.ints().end()};
  return {};
}

OnnxGraph::OnnxGraph(onnx::ModelProto model, std::string path) : m_model(std::move(model)), m_path(std::move(path)) {
  std::set<std::string> made;
  for (const auto& v : graph().input()) made.insert(v.name());
  for (const auto& t : graph().initializer()) made.insert(t.name());
  for (int i = 0; i < node_count(); ++i) {
    const onnx::NodeProto& n = node(i);
    for (const std::string& in : n.input())
      if (!in.empty() && !made.count(in))
        throw ConfigError(m_path, "node " + std::to_string(i) + " \"" + n.name() + "\" (op " + n.op_type() +
                                      ") reads tensor \"" + in + "\" before any node makes it: a dangling input, "
                                      "or nodes out of topological order");
    for (const std::string& o : n.output()) made.insert(o);
    for (const std::string& o : n.output())
      if (!o.empty()) m_producer[o] = i;
    for (const std::string& in : n.input())
      if (!in.empty()) m_consumers[in].push_back(i);
    if (n.op_type() == "Constant")
      for (const auto& a : n.attribute())
        if (a.name() == "value" && n.output_size() > 0) m_tensor[n.output(0)] = &a.t();
  }
  for (const auto& t : graph().initializer()) m_tensor[t.name()] = &t;
  classify();
  collect_shapes();
  complete_shapes();
}

int64_t OnnxGraph::batch() const {
  const std::vector<int64_t> s = shape(input_name());
  return !s.empty() && s[0] > 0 ? s[0] : 1;
}

void OnnxGraph::classify() {
  // The first graph input is the network's data; torch.onnx puts the model inputs first and the
  // parameters after them when export_params=False.
  m_class[input_name()] = TensorClass::Activation;
  for (int i = 1; i < graph().input_size(); ++i) m_class[graph().input(i).name()] = TensorClass::Weight;
  for (const auto& t : graph().initializer())
    if (!m_class.count(t.name())) m_class[t.name()] = TensorClass::Weight;
  for (int i = 0; i < node_count(); ++i) {
    const onnx::NodeProto& n = node(i);
    TensorClass c = TensorClass::Static;
    const std::string& op = n.op_type();
    if (op != "Constant" && op != "Shape" && op != "Size" && op != "ConstantOfShape") {
      for (const std::string& in : n.input()) {
        if (in.empty()) continue;
        const auto it = m_class.find(in);
        const TensorClass ic = it == m_class.end() ? TensorClass::Static : it->second;
        if (ic == TensorClass::Activation) c = TensorClass::Activation;
        else if (ic == TensorClass::Weight && c == TensorClass::Static) c = TensorClass::Weight;
      }
    }
    for (const std::string& o : n.output())
      if (!o.empty()) m_class[o] = c;
  }
}

void OnnxGraph::verify_nodes() const {
  std::map<std::string, int> opsets;
  for (const auto& o : m_model.opset_import()) opsets[o.domain() == "ai.onnx" ? "" : o.domain()] = static_cast<int>(o.version());
  for (int i = 0; i < node_count(); ++i) {
    const onnx::NodeProto& n = node(i);
    const std::string domain = n.domain() == "ai.onnx" ? "" : n.domain();
    const auto opset = opsets.find(domain);
    if (opset == opsets.end()) continue;
    const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(n.op_type(), opset->second, domain);
    if (!schema) continue;  // an op newer than onnx 1.12 (Gelu): the importer's own rules size it
    try {
      schema->Verify(n);  // input and output counts, attribute names and types
    } catch (const std::exception& e) {
      throw ConfigError(m_path, "node " + std::to_string(i) + " \"" + n.name() + "\" (op " + n.op_type() +
                                    ") does not match its ONNX schema: " + e.what());
    }
  }
}

void OnnxGraph::collect_shapes() {
  // ONNX's shape inference trusts the nodes to match their schemas (a malformed node crashes it).
  verify_nodes();
  const InferredModel run = infer_shapes_isolated(m_model);
  if (run.outcome == InferredModel::Outcome::Crashed)
    throw ConfigError(m_path, "not a valid ONNX model: ONNX's shape inference died on it (" + run.how +
                                  "); the file is corrupt in a way the protobuf and schema checks do not catch");
  // Inference that throws leaves outputs unknown; complete_shapes() fills what it can.
  const onnx::ModelProto& inferred = run.outcome == InferredModel::Outcome::Inferred ? run.model : m_model;
  const onnx::GraphProto& g = inferred.graph();
  for (const auto& v : g.input()) m_shape[v.name()] = dims_of(v.type());
  for (const auto& v : g.value_info()) m_shape[v.name()] = dims_of(v.type());
  for (const auto& v : g.output())
    if (!known(m_shape[v.name()])) m_shape[v.name()] = dims_of(v.type());
  for (const auto& t : g.initializer()) m_shape[t.name()] = {t.dims().begin(), t.dims().end()};
  for (const auto& [name, t] : m_tensor) m_shape[name] = {t->dims().begin(), t->dims().end()};
}

void OnnxGraph::complete_shapes() {
  for (int i = 0; i < node_count(); ++i) {
    const onnx::NodeProto& n = node(i);
    if (n.output_size() == 0 || known(shape(n.output(0)))) continue;
    if (const auto s = own_shape(n)) m_shape[n.output(0)] = *s;
  }
}

std::optional<std::vector<int64_t>> OnnxGraph::own_shape(const onnx::NodeProto& n) const {
  const std::string& op = n.op_type();
  if (n.input_size() == 0) return std::nullopt;
  const std::vector<int64_t> x = shape(n.input(0));
  if (!known(x)) return std::nullopt;
  if (kSameShapeOps.count(op)) return x;
  if (kBroadcastOps.count(op)) {
    std::vector<int64_t> out = x;
    for (int k = 1; k < n.input_size(); ++k) {
      std::vector<int64_t> y = shape(n.input(k));
      if (!known(y) && !y.empty()) return std::nullopt;
      if (y.size() > out.size()) out.insert(out.begin(), y.size() - out.size(), 1);
      for (size_t d = 0; d < y.size(); ++d) {
        int64_t& o = out[out.size() - y.size() + d];
        o = std::max(o, y[d]);
      }
    }
    return out;
  }
  if (op == "Resize" || op == "Upsample") {
    if (n.input_size() >= 4 && !n.input(3).empty())
      if (const auto sizes = constant(n.input(3))) return std::vector<int64_t>(sizes->begin(), sizes->end());
    const int scales_at = op == "Upsample" ? 1 : 2;
    if (n.input_size() > scales_at)
      if (const auto scales = constant(n.input(scales_at)); scales && scales->size() == x.size()) {
        std::vector<int64_t> out = x;
        for (size_t d = 0; d < x.size(); ++d) out[d] = static_cast<int64_t>(x[d] * (*scales)[d]);
        return out;
      }
    return std::nullopt;
  }
  if (op == "GlobalAveragePool" || op == "GlobalMaxPool") {
    std::vector<int64_t> out = x;
    std::fill(out.begin() + 2, out.end(), 1);
    return out;
  }
  if (op == "Flatten") {
    const int64_t axis = attr_int(n, "axis", 1);
    int64_t a = 1, b = 1;
    for (size_t d = 0; d < x.size(); ++d) (static_cast<int64_t>(d) < axis ? a : b) *= x[d];
    return std::vector<int64_t>{a, b};
  }
  if (op == "Conv" || op == "MaxPool" || op == "AveragePool") {
    std::vector<int64_t> k = attr_ints(n, "kernel_shape");
    if (op == "Conv" && k.empty() && n.input_size() > 1) {
      const std::vector<int64_t> w = shape(n.input(1));
      if (w.size() > 2) k.assign(w.begin() + 2, w.end());
    }
    const size_t sp = x.size() - 2;
    if (k.size() != sp) return std::nullopt;
    std::vector<int64_t> strides = attr_ints(n, "strides"), dil = attr_ints(n, "dilations"), pads = attr_ints(n, "pads");
    strides.resize(sp, 1);
    dil.resize(sp, 1);
    pads.resize(2 * sp, 0);
    std::vector<int64_t> out = x;
    if (op == "Conv") out[1] = shape(n.input(1)).empty() ? -1 : shape(n.input(1))[0];
    for (size_t d = 0; d < sp; ++d)
      out[2 + d] = window_out(x[2 + d], k[d], strides[d], dil[d], pads[d] + pads[d + sp], attr_int(n, "ceil_mode", 0));
    return out;
  }
  if (op == "Gemm" && n.input_size() > 1) {
    const std::vector<int64_t> b = shape(n.input(1));
    if (b.size() != 2 || x.size() != 2) return std::nullopt;
    return std::vector<int64_t>{attr_int(n, "transA", 0) ? x[1] : x[0], attr_int(n, "transB", 0) ? b[0] : b[1]};
  }
  if (op == "MatMul" && n.input_size() > 1) {
    const std::vector<int64_t> b = shape(n.input(1));
    if (b.size() != 2) return std::nullopt;
    std::vector<int64_t> out = x;
    out.back() = b[1];
    return out;
  }
  return std::nullopt;
}

TensorClass OnnxGraph::tensor_class(const std::string& t) const {
  const auto it = m_class.find(t);
  return it == m_class.end() ? TensorClass::Static : it->second;
}

std::vector<int64_t> OnnxGraph::shape(const std::string& t) const {
  const auto it = m_shape.find(t);
  return it == m_shape.end() ? std::vector<int64_t>{} : it->second;
}

int64_t OnnxGraph::numel(const std::string& t) const {
  const std::vector<int64_t> s = shape(t);
  if (s.empty() && !m_shape.count(t)) return -1;
  int64_t n = 1;
  for (int64_t d : s) {
    if (d < 0) return -1;
    n *= d;
  }
  return n;
}

int OnnxGraph::producer(const std::string& t) const {
  const auto it = m_producer.find(t);
  return it == m_producer.end() ? -1 : it->second;
}

std::vector<int> OnnxGraph::consumers(const std::string& t) const {
  const auto it = m_consumers.find(t);
  return it == m_consumers.end() ? std::vector<int>{} : it->second;
}

std::optional<std::vector<double>> OnnxGraph::constant(const std::string& t) const {
  const auto it = m_tensor.find(t);
  if (it == m_tensor.end()) {
    // Exports without constant folding build small constants (Resize scales) from pieces.
    const int p = producer(t);
    if (p < 0 || tensor_class(t) != TensorClass::Static) return std::nullopt;
    const onnx::NodeProto& n = node(p);
    const std::string& op = n.op_type();
    if (op == "Concat") {
      std::vector<double> v;
      for (const std::string& in : n.input()) {
        const auto part = constant(in);
        if (!part) return std::nullopt;
        v.insert(v.end(), part->begin(), part->end());
      }
      return v;
    }
    if (op == "Identity" || op == "Cast" || op == "Unsqueeze" || op == "Squeeze" || op == "Reshape")
      return constant(n.input(0));
    return std::nullopt;
  }
  const onnx::TensorProto& p = *it->second;
  std::vector<double> v;
  const std::string& raw = p.raw_data();
  switch (p.data_type()) {
    case onnx::TensorProto::FLOAT:
      for (float f : p.float_data()) v.push_back(f);
      for (size_t k = 0; k + 4 <= raw.size(); k += 4) {
        float f;
        std::memcpy(&f, raw.data() + k, 4);
        v.push_back(f);
      }
      break;
    case onnx::TensorProto::DOUBLE:
      for (double d : p.double_data()) v.push_back(d);
      for (size_t k = 0; k + 8 <= raw.size(); k += 8) {
        double d;
        std::memcpy(&d, raw.data() + k, 8);
        v.push_back(d);
      }
      break;
    case onnx::TensorProto::INT64:
      for (int64_t i : p.int64_data()) v.push_back(static_cast<double>(i));
      for (size_t k = 0; k + 8 <= raw.size(); k += 8) {
        int64_t i;
        std::memcpy(&i, raw.data() + k, 8);
        v.push_back(static_cast<double>(i));
      }
      break;
    case onnx::TensorProto::INT32:
      for (int32_t i : p.int32_data()) v.push_back(i);
      break;
    case onnx::TensorProto::BOOL:
      for (int32_t i : p.int32_data()) v.push_back(i);
      for (char c : raw) v.push_back(c != 0);
      break;
    default:
      return std::nullopt;
  }
  if (v.empty()) return std::nullopt;  // a weight without data (export_params=False)
  return v;
}

std::vector<std::string> OnnxGraph::activation_inputs(int i) const {
  std::vector<std::string> out;
  for (const std::string& in : node(i).input())
    if (is_activation(in)) out.push_back(in);
  return out;
}

}  // namespace kp
