#pragma once
// Maps an indexed ONNX graph to kneepoint layers. Contract: import_onnx() walks the nodes in
// graph order (ONNX requires topological order), emits one layer per mapped operator or fusion
// (onnx_fusions.h), leaves shape arithmetic, weight transforms and pure re-layouts out, and
// records one summary line per node; the first node it cannot map sets `error` and the rest are
// only listed. Tensor layouts (image C x H x W, sequence S x F, vector F) follow the data from
// the network input, so a transpose that only moves the batch axis is no layer.
#include "tools/import/imported_network.h"
#include "tools/import/onnx_graph.h"

namespace kp {

ImportedNetwork import_onnx(const OnnxGraph& g, const std::string& name);

}  // namespace kp
