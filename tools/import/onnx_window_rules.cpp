// Convolutions, pools, the Pad that PyTorch exports before a padded average pool, and Resize.
#include <algorithm>
#include <cmath>

#include "tools/import/onnx_node_rules.h"

namespace kp {

namespace {

// pads [b0, b1, ..., e0, e1, ...] as kneepoint's padding: symmetric pads as numbers; an
// asymmetric pair only where it is what "same" means (TensorFlow-style exports).
std::optional<std::string> padding_text(const onnx::NodeProto& n, std::vector<int64_t> pads, size_t sp) {
  const std::string auto_pad = attr_string(n, "auto_pad", "NOTSET");
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") return std::string("same");
  if (auto_pad == "VALID") return std::string("valid");
  pads.resize(2 * sp, 0);
  std::vector<int64_t> p(sp);
  for (size_t d = 0; d < sp; ++d) {
    if (pads[d] != pads[d + sp]) return std::nullopt;
    p[d] = pads[d];
  }
  if (std::all_of(p.begin(), p.end(), [](int64_t v) { return v == 0; })) return std::string("valid");
  return yaml_ints(p);
}

std::vector<int64_t> filled(std::vector<int64_t> v, size_t n) {
  v.resize(n, 1);
  return v;
}

std::vector<int64_t> pads_of(const MapperState& s, int i) {
  const auto it = s.folded_pads.find(i);
  return it != s.folded_pads.end() ? it->second : attr_ints(s.g.node(i), "pads");
}

}  // namespace

std::string yaml_ints(const std::vector<int64_t>& v) {
  if (!v.empty() && std::all_of(v.begin(), v.end(), [&](int64_t x) { return x == v[0]; })) return std::to_string(v[0]);
  std::string out = "[";
  for (size_t k = 0; k < v.size(); ++k) out += (k ? ", " : "") + std::to_string(v[k]);
  return out + "]";
}

std::string map_conv(MapperState& s, int i) {
  const OnnxGraph& g = s.g;
  const onnx::NodeProto& n = g.node(i);
  const std::optional<Ref> x = s.ref(n.input(0));
  const std::vector<int64_t> w = g.shape(n.input(1));
  if (!x || !g.is_weight(n.input(1))) return s.fail(i, "a convolution whose input or weight is not a mapped tensor");
  if (w.size() != 3 && w.size() != 4) return s.fail(i, "only 1-D and 2-D convolutions are supported");
  const bool two_d = w.size() == 4;
  if (x->view.kind != (two_d ? TensorView::Image : TensorView::Sequence))
    return s.fail(i, std::string("expected ") + (two_d ? "an image" : "a sequence") + " input, got " + x->view.text());
  const size_t sp = w.size() - 2;
  const std::vector<int64_t> out = g.shape(n.output(0));
  if (out.size() != w.size() || std::any_of(out.begin(), out.end(), [](int64_t d) { return d < 0; }))
    return s.fail(i, "the output shape could not be inferred");
  const std::optional<std::string> pad = padding_text(n, pads_of(s, i), sp);
  if (!pad) return s.fail(i, "asymmetric padding (pads begin != end) is not expressible");
  const bool bias = n.input_size() > 2 && !n.input(2).empty();
  std::string problem;
  const int64_t params = s.weights(i, {n.input(1), bias ? n.input(2) : ""}, &problem);
  if (params < 0) return s.fail(i, problem);
  ImportedLayer l;
  l.kind = two_d ? "conv2d" : "conv1d";
  l.keys = {{"filters", std::to_string(w[0])}, {"kernel", yaml_ints({w.begin() + 2, w.end()})}};
  const std::vector<int64_t> stride = filled(attr_ints(n, "strides"), sp), dil = filled(attr_ints(n, "dilations"), sp);
  if (yaml_ints(stride) != "1") l.keys.push_back({"stride", yaml_ints(stride)});
  if (*pad != "valid") l.keys.push_back({"padding", *pad});
  if (yaml_ints(dil) != "1") l.keys.push_back({"dilation", yaml_ints(dil)});
  const int64_t groups = attr_int(n, "group", 1);
  if (groups != 1) l.keys.push_back({"groups", std::to_string(groups)});
  l.keys.push_back({"bias", bias ? "true" : "false"});
  l.parameters = params;
  const TensorView v = two_d ? TensorView::image(out[1], out[2], out[3]) : TensorView::sequence(out[2], out[1]);
  return s.emit(i, l, {*x}, n.output(0), v);
}

std::string map_pool(MapperState& s, int i) {
  const OnnxGraph& g = s.g;
  const onnx::NodeProto& n = g.node(i);
  const std::optional<Ref> x = s.ref(n.input(0));
  if (!x || x->view.kind != TensorView::Image) return s.fail(i, "expected an image input (2-D pooling)");
  const std::vector<int64_t> k = attr_ints(n, "kernel_shape"), out = g.shape(n.output(0));
  if (k.size() != 2 || out.size() != 4) return s.fail(i, "only 2-D pooling with a known output shape is supported");
  if (attr_int(n, "ceil_mode", 0) != 0) return s.fail(i, "ceil_mode=1 is not expressible (kneepoint pools round down)");
  const std::optional<std::string> pad = padding_text(n, pads_of(s, i), 2);
  if (!pad) return s.fail(i, "asymmetric padding (pads begin != end) is not expressible");
  ImportedLayer l;
  l.kind = n.op_type() == "MaxPool" ? "maxpool" : "avgpool";
  l.keys = {{"kernel", yaml_ints(k)}, {"stride", yaml_ints(filled(attr_ints(n, "strides"), 2))}};
  if (*pad != "valid") l.keys.push_back({"padding", *pad});
  return s.emit(i, l, {*x}, n.output(0), TensorView::image(out[1], out[2], out[3]));
}

std::string map_pad(MapperState& s, int i) {
  const OnnxGraph& g = s.g;
  const onnx::NodeProto& n = g.node(i);
  const std::vector<int> users = g.consumers(n.output(0));
  const std::optional<Ref> x = s.ref(n.input(0));
  const std::optional<std::vector<double>> pads =
      n.input_size() > 1 ? g.constant(n.input(1)) : std::optional<std::vector<double>>{};
  const std::string mode = attr_string(n, "mode", "constant");
  if (!x || users.size() != 1 || !pads || mode != "constant" || pads->size() % 2 != 0)
    return s.fail(i, "Pad is supported only as constant padding right before one convolution or pool");
  const std::string& next = g.node(users[0]).op_type();
  if (next != "Conv" && next != "MaxPool" && next != "AveragePool")
    return s.fail(i, "Pad is supported only right before a convolution or pool");
  const size_t rank = pads->size() / 2;
  if (rank < 3 || (*pads)[0] != 0 || (*pads)[1] != 0 || (*pads)[rank] != 0 || (*pads)[rank + 1] != 0)
    return s.fail(i, "Pad of the batch or channel axis is not expressible");
  std::vector<int64_t> own = attr_ints(g.node(users[0]), "pads");
  own.resize(2 * (rank - 2), 0);
  for (size_t d = 0; d < rank - 2; ++d) {
    own[d] += static_cast<int64_t>((*pads)[2 + d]);
    own[d + rank - 2] += static_cast<int64_t>((*pads)[rank + 2 + d]);
  }
  s.folded_pads[users[0]] = own;
  s.alias(n.output(0), *x);
  return "padding folded into node " + std::to_string(users[0]);
}

std::string map_resize(MapperState& s, int i) {
  const OnnxGraph& g = s.g;
  const onnx::NodeProto& n = g.node(i);
  const std::optional<Ref> x = s.ref(n.input(0));
  const std::vector<int64_t> in = g.shape(n.input(0)), out = g.shape(n.output(0));
  if (!x || x->view.kind != TensorView::Image || in.size() != 4 || out.size() != 4)
    return s.fail(i, "expected a 2-D image resize with known shapes");
  if (out[0] != in[0] || out[1] != in[1] || out[2] % in[2] != 0 || out[3] % in[3] != 0 ||
      out[2] / in[2] != out[3] / in[3])
    return s.fail(i, "only an integer upsampling factor, the same for height and width, is expressible");
  const int64_t factor = out[2] / in[2];
  ImportedLayer l;
  l.kind = "upsample";
  l.keys = {{"factor", std::to_string(factor)}};
  std::string text = s.emit(i, l, {*x}, n.output(0), TensorView::image(out[1], out[2], out[3]));
  const std::string mode = attr_string(n, "mode", "nearest");
  if (mode != "nearest") text += " (mode " + mode + " costed as nearest)";
  return text;
}

}  // namespace kp
