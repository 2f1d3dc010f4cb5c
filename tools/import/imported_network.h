#pragma once
// What `kneepoint import onnx` makes of an ONNX graph: kneepoint layers in graph order, the
// network input, the parameter count and a summary with one line per ONNX node. Contract: every
// key value is YAML text as written to the workload file; `parameters` is the sum of the weights
// the layers consume, counted from the ONNX weight shapes; `error` is set (and the layers are
// incomplete) when a node could not be mapped, naming the node, its op type and its summary line.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/config_error.h"

namespace kp {

struct ImportedLayer {
  std::string kind, name;
  std::vector<std::string> inputs;  // kneepoint tensor names; the network input is "input"
  bool explicit_inputs = false;     // add, multiply, concat: always written
  std::vector<std::pair<std::string, std::string>> keys;
  int64_t parameters = 0;
  std::string comment;  // the ONNX node(s) it came from
};

struct ImportedNetwork {
  std::string name, source, producer;
  std::string input_yaml;  // the `input:` mapping, e.g. "{channels: 3, height: 224, width: 224}"
  bool images = false;
  int64_t classes = 0;     // images only: the classifier's outputs
  std::vector<ImportedLayer> layers;
  int64_t parameters = 0;
  std::string loss_note;   // set when the loss was appended (the ONNX graph has none)
  std::vector<std::string> summary;
  std::optional<Diagnostic> error;
};

}  // namespace kp
