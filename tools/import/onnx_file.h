#pragma once
// Reading an ONNX model file. Contract: read_onnx_model() returns the parsed ModelProto (Debian's
// libonnx-dev generated protobuf classes) or throws ConfigError naming the file: missing, not
// readable, not an ONNX protobuf, no graph, or no nodes. Weights need not be present
// (export_params=False): their shapes come from the graph inputs' declared types.
#include <onnx/onnx_pb.h>

#include <string>

namespace kp {

onnx::ModelProto read_onnx_model(const std::string& path);

}  // namespace kp
