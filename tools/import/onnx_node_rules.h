#pragma once
// The per-operator rules of the ONNX importer (onnx_mapper.cpp walks the graph and calls them).
// Contract: map_node() and map_fusion() emit at most one kneepoint layer (a dense layer on an
// image may be preceded by its flatten) or an alias of their input, and return the node's summary
// text; a node they cannot map goes through MapperState::fail(), which records the first error.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tools/import/imported_network.h"
#include "tools/import/onnx_fusions.h"
#include "tools/import/onnx_graph.h"
#include "tools/import/tensor_view.h"

namespace kp {

struct Ref {
  std::string kp;  // kneepoint tensor name
  TensorView view;
};

struct MapperState {
  explicit MapperState(const OnnxGraph& graph);

  std::string fail(int node, const std::string& why);
  std::optional<Ref> ref(const std::string& onnx_tensor) const;
  // A new kneepoint tensor name for node n's output (op_word replaces the op in functional names; "-": the bare module path).
  std::string unique_name(const onnx::NodeProto& n, const std::string& op_word = "");
  // Appends the layer (named after node i) reading `inputs`; `out` then refers to it.
  std::string emit(int node, ImportedLayer layer, const std::vector<Ref>& inputs, const std::string& out,
                   const TensorView& view);
  void alias(const std::string& out, const Ref& r);
  // Sum of the weights' element counts; -1 with *problem set when a shape is unknown.
  int64_t weights(int node, const std::vector<std::string>& tensors, std::string* problem) const;

  const OnnxGraph& g;
  ImportedNetwork net;
  std::vector<Fusion> fusions;
  std::map<int, const Fusion*> fusion_at;
  std::map<std::string, Ref> refs;
  std::set<std::string> names;
  std::map<int, std::vector<int64_t>> folded_pads;  // window node -> pads of the Pad before it
};

std::string map_node(MapperState& s, int node);
std::string map_fusion(MapperState& s, int node, const Fusion& f);

}  // namespace kp

namespace kp {

// Window operators (onnx_window_rules.cpp): Conv, MaxPool/AveragePool, Pad before them, Resize.
std::string map_conv(MapperState& s, int node);
std::string map_pool(MapperState& s, int node);
std::string map_pad(MapperState& s, int node);
std::string map_resize(MapperState& s, int node);
// Split along channels or features (onnx_split_rule.cpp); its outputs become "name:k".
std::string map_split(MapperState& s, int node);

// "k" when all values are equal, else "[a, b]".
std::string yaml_ints(const std::vector<int64_t>& v);

}  // namespace kp
