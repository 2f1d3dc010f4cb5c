#include "tools/import/workload_writer.h"

#include <sstream>

namespace kp {

std::string write_workload_yaml(const ImportedNetwork& net) {
  std::ostringstream y;
  y << "# Imported by `kneepoint import onnx` from " << net.source << " (producer " << net.producer << ").\n"
    << "# " << net.layers.size() << " layers, " << net.parameters
    << " parameters counted from the ONNX weight shapes (batchnorm running statistics are not\n"
    << "# parameters). The training fields at the end are placeholders: replace them before use.\n"
    << "name: " << net.name << "\n"
    << "input: " << net.input_yaml << "\n";
  if (net.images) y << "classes: " << net.classes << "\n";
  y << "network:\n";
  std::string previous = "input";
  for (const ImportedLayer& l : net.layers) {
    y << "  - {kind: " << l.kind << ", name: " << l.name;
    const bool implicit = !l.explicit_inputs && (l.inputs.empty() || (l.inputs.size() == 1 && l.inputs[0] == previous));
    if (!implicit) {
      y << ", inputs: [";
      for (size_t k = 0; k < l.inputs.size(); ++k) y << (k ? ", " : "") << l.inputs[k];
      y << "]";
    }
    for (const auto& [key, value] : l.keys) y << ", " << key << ": " << value;
    y << "}";
    if (!l.comment.empty()) y << "  # " << l.comment;
    if (l.parameters > 0) y << ", " << l.parameters << " parameters";
    y << "\n";
    previous = l.name;
  }
  y << "dataset: {kind: none, train_size: 1}  # PLACEHOLDER: the ONNX file names no data set; set kind and train_size\n"
    << "optimizer: {kind: momentum, learning_rate: 0.1, momentum: 0.9}  # PLACEHOLDER: not in the ONNX file\n"
    << "target: {validation_error: 0.1}  # PLACEHOLDER: not in the ONNX file\n"
    << "step_curve: {source: law, n_inf: 1000, alpha: 1000000}  # PLACEHOLDER: an assumed law, neither measured nor published\n";
  return y.str();
}

}  // namespace kp
