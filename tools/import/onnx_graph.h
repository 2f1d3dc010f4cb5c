#pragma once
// An ONNX graph indexed for the importer. Contract: every tensor name is classified as the
// network input's data (Activation), a weight (an initializer, a graph input after the first, or
// computed from weights alone, e.g. a transposed or re-sliced weight), or Static (constants and
// shape arithmetic, derived from neither); shapes come from ONNX's shape inference, completed by
// the importer's own rules for the operators it maps where ONNX leaves a gap. Dims are >= 0 where
// known, -1 where not; shape() is empty when the rank is unknown.
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kp {

enum class TensorClass { Activation, Weight, Static };

class OnnxGraph {
 public:
  OnnxGraph(onnx::ModelProto model, std::string path);

  const std::string& path() const { return m_path; }
  const onnx::ModelProto& model() const { return m_model; }
  const onnx::GraphProto& graph() const { return m_model.graph(); }
  int node_count() const { return graph().node_size(); }
  const onnx::NodeProto& node(int i) const { return graph().node(i); }
  const std::string& input_name() const { return graph().input(0).name(); }
  int input_elem_type() const { return graph().input(0).type().tensor_type().elem_type(); }
  int64_t batch() const;  // dim 0 of the network input (1 if unknown)

  TensorClass tensor_class(const std::string& t) const;
  bool is_activation(const std::string& t) const { return !t.empty() && tensor_class(t) == TensorClass::Activation; }
  bool is_weight(const std::string& t) const { return !t.empty() && tensor_class(t) == TensorClass::Weight; }
  std::vector<int64_t> shape(const std::string& t) const;
  int64_t numel(const std::string& t) const;  // -1 when a dim is unknown
  int producer(const std::string& t) const;   // node index, -1 for graph inputs and initializers
  std::vector<int> consumers(const std::string& t) const;
  // Values of a Constant node's output or of an initializer that carries data (float or int).
  std::optional<std::vector<double>> constant(const std::string& t) const;

  // The activation inputs of node i, in order (weights and constants left out).
  std::vector<std::string> activation_inputs(int i) const;

 private:
  void classify();
  void verify_nodes() const;
  void collect_shapes();
  void complete_shapes();
  std::optional<std::vector<int64_t>> own_shape(const onnx::NodeProto& n) const;

  onnx::ModelProto m_model;
  std::string m_path;
  std::map<std::string, TensorClass> m_class;
  std::map<std::string, std::vector<int64_t>> m_shape;
  std::map<std::string, int> m_producer;
  std::map<std::string, std::vector<int>> m_consumers;
  std::map<std::string, const onnx::TensorProto*> m_tensor;  // Constant values and initializers
};

// Attribute readers with the ONNX defaults given by the caller.
int64_t attr_int(const onnx::NodeProto& n, const std::string& name, int64_t fallback);
float attr_float(const onnx::NodeProto& n, const std::string& name, float fallback);
std::string attr_string(const onnx::NodeProto& n, const std::string& name, const std::string& fallback);
std::vector<int64_t> attr_ints(const onnx::NodeProto& n, const std::string& name);

}  // namespace kp
