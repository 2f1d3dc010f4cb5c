#include "tools/import/onnx_fusions.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

namespace kp {

namespace {

// Ops that move or rename data between the projections and the attention products.
const std::set<std::string> kPlumbing = {"Reshape", "Transpose", "Slice",  "Split", "Squeeze",
                                         "Unsqueeze", "Gather",  "Identity", "Cast",  "Expand"};

// The single consumer of t, or -1.
int sole_consumer(const OnnxGraph& g, const std::string& t) {
  const std::vector<int> c = g.consumers(t);
  return c.size() == 1 ? c[0] : -1;
}

// One activation input, the others static (constants, shape arithmetic).
bool one_activation(const OnnxGraph& g, int i) {
  int act = 0;
  for (const std::string& in : g.node(i).input()) {
    if (in.empty()) continue;
    if (g.is_activation(in)) ++act;
    else if (g.is_weight(in)) return false;
  }
  return act == 1;
}

bool scalar_near(const OnnxGraph& g, const onnx::NodeProto& n, double value) {
  for (const std::string& in : n.input())
    if (!g.is_activation(in))
      if (const auto v = g.constant(in); v && v->size() == 1) return std::fabs((*v)[0] - value) < 1e-3 * std::fabs(value);
  return false;
}

// The output of a weight product's bias Add when that Add is its only consumer.
int bias_add(const OnnxGraph& g, const std::string& t) {
  const int c = sole_consumer(g, t);
  if (c < 0 || g.node(c).op_type() != "Add" || g.node(c).input_size() != 2) return -1;
  const onnx::NodeProto& a = g.node(c);
  return (g.is_weight(a.input(0)) || g.is_weight(a.input(1))) ? c : -1;
}

std::string weight_operand(const OnnxGraph& g, const onnx::NodeProto& n) {
  for (const std::string& in : n.input())
    if (g.is_weight(in)) return in;
  return "";
}

std::optional<Fusion> match_gelu(const OnnxGraph& g, int erf) {
  const onnx::NodeProto& e = g.node(erf);
  const int d = g.producer(e.input(0));
  if (d < 0 || !one_activation(g, d)) return std::nullopt;
  const onnx::NodeProto& dn = g.node(d);
  const bool div = dn.op_type() == "Div" && scalar_near(g, dn, std::sqrt(2.0));
  const bool mul = dn.op_type() == "Mul" && scalar_near(g, dn, 1 / std::sqrt(2.0));
  if (!div && !mul) return std::nullopt;
  const std::string x = g.activation_inputs(d)[0];
  const int a = sole_consumer(g, e.output(0));
  if (a < 0 || g.node(a).op_type() != "Add" || !one_activation(g, a) || !scalar_near(g, g.node(a), 1.0))
    return std::nullopt;
  const int m1 = sole_consumer(g, g.node(a).output(0));
  if (m1 < 0 || g.node(m1).op_type() != "Mul") return std::nullopt;
  const onnx::NodeProto& m1n = g.node(m1);
  const bool times_x = (m1n.input(0) == x) != (m1n.input(1) == x);
  if (!times_x && !(one_activation(g, m1) && scalar_near(g, m1n, 0.5))) return std::nullopt;
  const int m2 = sole_consumer(g, m1n.output(0));
  if (m2 < 0 || g.node(m2).op_type() != "Mul") return std::nullopt;
  const onnx::NodeProto& m2n = g.node(m2);
  if (times_x ? !(one_activation(g, m2) && scalar_near(g, m2n, 0.5)) : (m2n.input(0) != x && m2n.input(1) != x))
    return std::nullopt;
  Fusion f;
  f.kind = "gelu";
  f.nodes = {d, erf, a, m1, m2};
  f.input = x;
  f.output = m2n.output(0);
  return f;
}

std::optional<Fusion> match_silu(const OnnxGraph& g, int sig) {
  const onnx::NodeProto& s = g.node(sig);
  const int m = sole_consumer(g, s.output(0));
  if (m < 0 || g.node(m).op_type() != "Mul") return std::nullopt;
  const onnx::NodeProto& mn = g.node(m);
  const std::string& x = s.input(0);
  if (!((mn.input(0) == x && mn.input(1) == s.output(0)) || (mn.input(1) == x && mn.input(0) == s.output(0))))
    return std::nullopt;
  Fusion f;
  f.kind = "silu";
  f.nodes = {sig, m};
  f.input = x;
  f.output = mn.output(0);
  return f;
}

struct Trace {
  std::set<int> nodes;
  int projection = -1;
  std::string x;  // the projection's activation input
  bool ok = false;
};

// From an operand of an attention product back to the projection that made it.
Trace trace_back(const OnnxGraph& g, std::string t) {
  Trace tr;
  for (int guard = 0; guard < 64; ++guard) {
    const int p = g.producer(t);
    if (p < 0) return tr;
    const onnx::NodeProto& n = g.node(p);
    if (is_weight_product(g, p)) {
      tr.nodes.insert(p);
      tr.projection = p;
      tr.x = g.activation_inputs(p)[0];
      tr.ok = true;
      return tr;
    }
    const std::vector<std::string> acts = g.activation_inputs(p);
    if (acts.size() != 1) return tr;
    const bool scale = (n.op_type() == "Div" || n.op_type() == "Mul") && one_activation(g, p);
    const bool bias = n.op_type() == "Add" && !weight_operand(g, n).empty();
    if (!kPlumbing.count(n.op_type()) && !scale && !bias) return tr;
    tr.nodes.insert(p);
    t = acts[0];
  }
  return tr;
}

void add_projection(const OnnxGraph& g, int p, Fusion& f, std::set<int>& nodes) {
  const onnx::NodeProto& n = g.node(p);
  for (const std::string& in : n.input())
    if (g.is_weight(in) && std::find(f.weights.begin(), f.weights.end(), in) == f.weights.end()) f.weights.push_back(in);
  if (n.op_type() == "Gemm" && n.input_size() > 2 && g.is_weight(n.input(2))) f.bias = true;
  const int b = bias_add(g, n.output(0));
  if (b >= 0) {
    nodes.insert(b);
    f.bias = true;
    const std::string w = weight_operand(g, g.node(b));
    if (std::find(f.weights.begin(), f.weights.end(), w) == f.weights.end()) f.weights.push_back(w);
  }
}

int64_t last_dim(const OnnxGraph& g, const std::string& t) {
  const std::vector<int64_t> s = g.shape(t);
  return s.empty() ? -1 : s.back();
}

std::optional<Fusion> match_attention(const OnnxGraph& g, int softmax) {
  std::set<int> nodes = {softmax};
  Fusion f;
  f.kind = "attention";
  // Scores: back from the softmax through scaling and masking to Q.K^T.
  std::string t = g.node(softmax).input(0);
  int qk = -1;
  for (int guard = 0; guard < 8 && qk < 0; ++guard) {
    const int p = g.producer(t);
    if (p < 0) return std::nullopt;
    const onnx::NodeProto& n = g.node(p);
    if (n.op_type() == "MatMul" && g.activation_inputs(p).size() == 2) qk = p;
    else if ((n.op_type() == "Div" || n.op_type() == "Mul" || n.op_type() == "Add" || n.op_type() == "Where" ||
              n.op_type() == "Sub") && g.activation_inputs(p).size() == 1 && weight_operand(g, n).empty()) {
      if (n.op_type() != "Div" && n.op_type() != "Mul") {
        f.causal = true;
        f.note = "a mask is added to the scores: causal assumed";
      }
      nodes.insert(p);
      t = g.activation_inputs(p)[0];
    } else return std::nullopt;
  }
  if (qk < 0) return std::nullopt;
  nodes.insert(qk);
  // Values: forward from the softmax through dropout to scores.V.
  t = g.node(softmax).output(0);
  int sv = -1;
  for (int guard = 0; guard < 4 && sv < 0; ++guard) {
    const int c = sole_consumer(g, t);
    if (c < 0) return std::nullopt;
    const onnx::NodeProto& n = g.node(c);
    if (n.op_type() == "MatMul" && n.input(0) == t && g.is_activation(n.input(1))) sv = c;
    else if (n.op_type() == "Dropout" || n.op_type() == "Cast" || n.op_type() == "Identity") {
      nodes.insert(c);
      t = n.output(0);
    } else return std::nullopt;
  }
  if (sv < 0) return std::nullopt;
  nodes.insert(sv);
  const Trace q = trace_back(g, g.node(qk).input(0)), k = trace_back(g, g.node(qk).input(1)),
              v = trace_back(g, g.node(sv).input(1));
  if (!q.ok || !k.ok || !v.ok || q.x != k.x || q.x != v.x) return std::nullopt;  // self-attention only
  for (const Trace* tr : {&q, &k, &v}) nodes.insert(tr->nodes.begin(), tr->nodes.end());
  for (int p : std::set<int>{q.projection, k.projection, v.projection}) add_projection(g, p, f, nodes);
  // Output: forward from scores.V through the head merge to the output projection.
  t = g.node(sv).output(0);
  int out = -1;
  for (int guard = 0; guard < 16 && out < 0; ++guard) {
    const int c = sole_consumer(g, t);
    if (c < 0) return std::nullopt;
    if (is_weight_product(g, c)) out = c;
    else if (kPlumbing.count(g.node(c).op_type()) && g.activation_inputs(c).size() == 1) {
      nodes.insert(c);
      t = g.node(c).output(0);
    } else return std::nullopt;
  }
  if (out < 0) return std::nullopt;
  nodes.insert(out);
  add_projection(g, out, f, nodes);
  const int b = bias_add(g, g.node(out).output(0));
  f.output = b >= 0 ? g.node(b).output(0) : g.node(out).output(0);
  f.input = q.x;
  // Heads from the scores: [N, h, S, S] or [N*h, S, S] (torch's batched matmul over N*h).
  const std::vector<int64_t> s = g.shape(g.node(qk).output(0));
  f.head_dim = last_dim(g, g.node(qk).input(0));
  if (s.size() == 4) f.heads = s[1];
  else if (s.size() == 3 && s[0] > 0) f.heads = s[0] / g.batch();
  if (f.heads <= 0 || f.head_dim <= 0) return std::nullopt;
  const int64_t qw = last_dim(g, g.node(q.projection).output(0));
  if (q.projection == k.projection) f.kv_heads = (qw / f.head_dim - f.heads) / 2;  // packed (h + 2 kv) hd
  else f.kv_heads = last_dim(g, g.node(k.projection).output(0)) / f.head_dim;
  f.nodes.assign(nodes.begin(), nodes.end());
  return f;
}

}  // namespace

bool is_weight_product(const OnnxGraph& g, int i) {
  const onnx::NodeProto& n = g.node(i);
  if (n.op_type() == "Gemm") return n.input_size() >= 2 && g.is_activation(n.input(0)) && g.is_weight(n.input(1));
  if (n.op_type() != "MatMul" || n.input_size() != 2) return false;
  return g.is_activation(n.input(0)) && g.is_weight(n.input(1)) && g.shape(n.input(1)).size() == 2;
}

std::vector<Fusion> find_fusions(const OnnxGraph& g) {
  std::vector<Fusion> out;
  std::set<int> taken;
  auto keep = [&](std::optional<Fusion> f) {
    if (!f) return;
    for (int n : f->nodes)
      if (taken.count(n)) return;
    taken.insert(f->nodes.begin(), f->nodes.end());
    out.push_back(std::move(*f));
  };
  for (int i = 0; i < g.node_count(); ++i)
    if (g.node(i).op_type() == "Softmax") keep(match_attention(g, i));
  for (int i = 0; i < g.node_count(); ++i) {
    const std::string& op = g.node(i).op_type();
    if (op == "Erf") keep(match_gelu(g, i));
    else if (op == "Sigmoid") keep(match_silu(g, i));
  }
  for (int i = 0; i < g.node_count(); ++i) {
    if (taken.count(i) || g.node(i).op_type() != "MatMul" || !is_weight_product(g, i)) continue;
    const int b = bias_add(g, g.node(i).output(0));
    if (b < 0 || taken.count(b)) continue;
    Fusion f;
    f.kind = "dense";
    f.nodes = {i, b};
    f.input = g.node(i).input(0);
    f.output = g.node(b).output(0);
    f.weights = {g.node(i).input(1), weight_operand(g, g.node(b))};
    f.units = last_dim(g, g.node(i).input(1));
    f.bias = true;
    keep(f);
  }
  for (Fusion& f : out) std::sort(f.nodes.begin(), f.nodes.end());
  return out;
}

}  // namespace kp
