#include "tools/import/onnx_file.h"

#include <fstream>
#include <sstream>

#include "core/config_error.h"

namespace kp {

onnx::ModelProto read_onnx_model(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path, "cannot open the file: expected an ONNX model (.onnx)");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  const std::string data = bytes.str();
  if (data.empty()) throw ConfigError(path, "empty file: expected an ONNX model (.onnx)");
  onnx::ModelProto model;
  // ParseFromString refuses truncated or corrupt wire data; a text file usually fails here too.
  if (!model.ParseFromString(data))
    throw ConfigError(path, "not an ONNX model: the protobuf data is corrupt or truncated");
  if (!model.has_graph() || model.graph().node_size() == 0)
    throw ConfigError(path, "not an ONNX model: no graph with nodes in the file");
  if (model.graph().input_size() == 0)
    throw ConfigError(path, "the ONNX graph has no inputs: expected the network input first");
  return model;
}

}  // namespace kp
