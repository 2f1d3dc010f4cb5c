#pragma once
// The workload YAML of an imported network. Contract: write_workload_yaml() returns a file that a
// person can read and edit: a header naming the source, one flow-style line per layer with the
// ONNX node(s) it came from as a comment, `inputs:` only where a layer does not read the layer
// before it (always for add, multiply, concat), and the training fields (dataset, optimizer,
// target, step_curve) written as values marked `# PLACEHOLDER:` that the user must replace.
#include <string>

#include "tools/import/imported_network.h"

namespace kp {

std::string write_workload_yaml(const ImportedNetwork& net);

}  // namespace kp
