// ONNX Split as kneepoint's split layer (onnx_node_rules.h: map_split).
#include "tools/import/onnx_node_rules.h"

namespace kp {

// Split along channels (images) or features (sequences, vectors): kneepoint's split, whose output
// k is the tensor "name:k". The sizes come from the outputs' inferred shapes, which cover both
// the `split` attribute (opset < 13) and input (opset >= 13) and the equal split.
std::string map_split(MapperState& s, int i) {
  const OnnxGraph& g = s.g;
  const onnx::NodeProto& n = g.node(i);
  const std::optional<Ref> x = g.is_activation(n.input(0)) ? s.ref(n.input(0)) : std::nullopt;
  if (!x) return s.fail(i, "split of a constant or weight tensor is not expressible");
  const int64_t rank = static_cast<int64_t>(g.shape(n.input(0)).size());
  int64_t axis = attr_int(n, "axis", 0);
  if (axis < 0) axis += rank;
  const TensorView v = x->view;
  const bool channels = v.kind == TensorView::Image && axis == 1;
  const bool features = (v.kind == TensorView::Sequence || v.kind == TensorView::Vector) && axis == rank - 1;
  if (!channels && !features) return s.fail(i, "split along an axis other than channels or features");
  if (n.output_size() < 2) return s.fail(i, "a split into one piece");
  std::vector<TensorView> pieces;
  std::string sizes;
  int64_t total = 0;
  for (const std::string& o : n.output()) {
    const std::vector<int64_t> shape = g.shape(o);
    if (static_cast<int64_t>(shape.size()) != rank || shape[static_cast<size_t>(axis)] <= 0)
      return s.fail(i, "the size of output \"" + o + "\" is unknown");
    const int64_t size = shape[static_cast<size_t>(axis)];
    TensorView piece = v;
    (v.kind == TensorView::Image ? piece.c : piece.f) = size;
    pieces.push_back(piece);
    sizes += (sizes.empty() ? "[" : ", ") + std::to_string(size);
    total += size;
  }
  if (total != v.features())
    return s.fail(i, "its outputs hold " + std::to_string(total) + " of the input's " +
                         std::to_string(v.features()) + " features");
  ImportedLayer l;
  l.kind = "split";
  l.keys = {{"sizes", sizes + "]"}};
  const std::string text = s.emit(i, l, {*x}, n.output(0), v);
  const std::string name = s.net.layers.back().name;
  for (int k = 0; k < n.output_size(); ++k)
    s.alias(n.output(k), Ref{name + ":" + std::to_string(k), pieces[static_cast<size_t>(k)]});
  return text;
}

}  // namespace kp
