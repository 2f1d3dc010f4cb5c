#pragma once
// Subgraphs of several ONNX nodes that are one kneepoint layer. Contract: find_fusions() returns
// non-overlapping groups, each with the nodes it absorbs (ascending; the layer is emitted at the
// last), its one activation input and its output tensor, and the weight tensors that are its
// parameters. Recognised: multi-head attention as torch.nn.MultiheadAttention exports it (Q, K, V
// projections, packed or not, Q.K^T, softmax, scores.V, output projection), erf GELU
// (x * 0.5 * (1 + erf(x / sqrt 2))), SiLU (x * sigmoid(x)) and MatMul + bias Add (a dense layer).
#include <cstdint>
#include <string>
#include <vector>

#include "tools/import/onnx_graph.h"

namespace kp {

struct Fusion {
  std::string kind;               // attention | gelu | silu | dense
  std::vector<int> nodes;         // absorbed node indices, ascending
  std::string input, output;      // ONNX tensor names
  std::vector<std::string> weights;
  int64_t heads = 0, kv_heads = 0, head_dim = 0, units = 0;
  bool causal = false, bias = false;
  std::string note;               // said in the summary (e.g. why causal was set)
};

std::vector<Fusion> find_fusions(const OnnxGraph& g);

// A MatMul or Gemm that multiplies one activation by a weight (a dense layer or a projection).
bool is_weight_product(const OnnxGraph& g, int node);

}  // namespace kp
