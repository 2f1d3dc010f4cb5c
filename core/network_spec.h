#pragma once
// A network as layers, the way workloads/*.yaml write it, and its shape-resolved form. Contract:
// resolve_network() infers every tensor shape from the input, expands `repeat:` blocks and checks
// that each layer fits its inputs (e.g. a dense layer after a conv needs a flatten); the result is
// what both the simulator (through lower_training_step) and the trainer build from.
//
// Networks are graphs of named tensors: a layer's output is the tensor of its name, and a layer
// reads the previous layer's output unless `inputs:` names others (`input` is the network input).
// A split has several outputs, the tensors "name:0", "name:1", ... (TensorFlow's and ONNX's habit
// of naming a node's outputs by index); its bare name is no tensor, so a layer must say which
// piece it reads.
// Layers come in an order where every input is defined before it is read, so the list is a
// topological order; a reference to a later or unknown tensor, a tensor nobody reads and a shape
// mismatch are errors at the layer, naming the other end.
#include <cstdint>
#include <string>
#include <vector>

#include "core/config_error.h"

namespace kp {

enum class LayerKind {
  Dense, Conv2d, MaxPool, AvgPool, GlobalAvgPool, Relu, BatchNorm, Flatten, SoftmaxCrossEntropy,
  Residual,  // body(x) + shortcut(x); an empty shortcut is the identity
  // Graph joins and views.
  Add, Multiply, Concat, Reshape, Transpose,
  Split,  // features cut into pieces, read as "name:0", "name:1", ... (the inverse of concat)
  // Elementwise activations and regularisers.
  LeakyRelu, Gelu, Silu, Swiglu, Tanh, Sigmoid, Softmax, Dropout,
  // Normalisation over the features of each position.
  LayerNorm, RmsNorm,
  // Sequence layers.
  Embedding, Attention, Lstm, Gru, Conv1d,
  Upsample,
  // Losses (last layer).
  SigmoidCrossEntropy, Ctc
};
enum class Padding { Same, Valid, Explicit };

const char* layer_kind_name(LayerKind k);
bool is_loss(LayerKind k);

// A layer's role under tensor parallelism (`tensor_parallel:`): Auto splits attention by heads
// and an embedding by vocabulary rows and replicates everything else; Column splits a dense
// layer's outputs, Row its inputs (an all-reduce follows), Sharded marks elementwise work on a
// split tensor (between a column and a row layer).
enum class TensorSplit { Auto, Replicated, Column, Row, Sharded };

struct LayerSpec {
  LayerKind kind = LayerKind::Relu;
  std::string name;
  std::vector<std::string> inputs;  // empty: the previous layer's output
  Diagnostic at;                    // where the layer was written (origin empty: not from a file)
  int64_t units = 0;            // dense, lstm, gru: output features
  int64_t filters = 0;          // conv2d, conv1d
  int64_t kernel = 1;           // conv, pools: window height (and width unless kernel_w is set)
  int64_t kernel_w = 0;         // 0: square window
  int64_t stride = 1;
  int64_t stride_w = 0;         // 0: same as stride
  int64_t pad = 0, pad_w = -1;  // Padding::Explicit: zeros on each side (pad_w -1: same as pad)
  int64_t dilation = 1;
  int64_t groups = 1;           // grouped convolution; groups == channels is depthwise
  Padding padding = Padding::Valid;
  bool bias = true;             // dense, conv, attention, lstm, gru
  std::string tied;             // dense: shares its weights with this embedding (no parameters of its own)
  double slope = 0.01;          // leaky_relu
  double rate = 0.1;            // dropout
  int64_t vocab = 0;            // embedding: rows (0: the input's vocabulary)
  int64_t dim = 0;              // embedding: width
  int64_t positions = 0;        // embedding: learned position rows added to the token rows
  int64_t segments = 0;         // embedding: token-type rows (BERT)
  int64_t heads = 0, kv_heads = 0, head_dim = 0;  // attention (kv_heads < heads: grouped-query)
  bool causal = false;          // attention
  bool fused = false;           // attention: scores stay on chip (FlashAttention, Dao et al. 2022)
  bool bidirectional = false;   // lstm, gru
  bool merge_sum = false;       // bidirectional: directions summed (DeepSpeech2) instead of concatenated
  int64_t factor = 2;           // upsample (nearest)
  int64_t label_length = 0;     // ctc: target labels per sample
  int64_t to_c = 0, to_h = 0, to_w = 0;  // reshape/transpose target
  std::vector<int64_t> sizes;   // split: features (channels) of each output, in order
  bool to_sequence = false;
  TensorSplit tensor_parallel = TensorSplit::Auto;
  std::vector<LayerSpec> body;      // residual
  std::vector<LayerSpec> shortcut;  // residual
};

// Channels-height-width; a feature vector is {features, 1, 1}. A sequence is {features, positions,
// 1} with `sequence` set: layers such as dense act on every position. Token ids are a sequence of
// one feature with `vocab` > 0.
struct Shape {
  int64_t c = 0, h = 0, w = 0;
  bool sequence = false;
  int64_t vocab = 0;
  int64_t elements() const { return c * h * w; }
  bool operator==(const Shape& o) const {
    return c == o.c && h == o.h && w == o.w && sequence == o.sequence && vocab == o.vocab;
  }
};
std::string shape_text(const Shape& s);  // "64x56x56" or "sequence 512 x 768"

// One layer with its shapes resolved. Residual blocks are flattened: `residual_begin` marks where
// a block starts (its input is saved), and a ResidualAdd-like join is the layer with
// kind == Residual, which adds the saved input (through `shortcut_layers`, resolved) to its input.
// `inputs` holds the producers of a graph layer's inputs (indices into ResolvedNetwork::layers,
// -1 for the network input); empty means the previous layer, as in a chain. A split's `out` is its
// whole input (the union of its pieces); piece k has spec.sizes[k] features of the same positions.
struct ResolvedLayer {
  LayerSpec spec;               // body/shortcut cleared; see below for residuals
  Shape in, out;                // `in`: the first input
  std::vector<Shape> extra_in;  // further inputs of joins (add, multiply, concat)
  std::vector<int64_t> inputs;
  std::vector<int32_t> ports;   // parallel to inputs: which output of a split producer (else 0)
  int64_t params = 0;           // trainable parameters (weights + biases)
  int64_t block_start = -1;     // for Residual: index of the first layer of the body
  std::vector<ResolvedLayer> shortcut;  // for Residual: the projection path, resolved
};

struct NetworkSpec {
  Shape input;                  // the tensor `input`; with fields, the first field's shape
  // Named id inputs (e.g. user and item ids of a recommender), each a token sequence of one
  // position; where given they replace `input`.
  std::vector<std::string> field_names;
  std::vector<Shape> fields;
  int64_t classes = 0;          // images: the last layer's outputs; 0 = not checked
  std::vector<LayerSpec> layers;
};

struct ResolvedNetwork {
  Shape input;
  std::vector<ResolvedLayer> layers;
  int64_t params = 0;
  int64_t fields = 0;           // named id inputs (NetworkSpec::fields)
};

// Throws ConfigError at the layer where it has a position (else std::invalid_argument with the
// layer name) on an impossible shape or graph.
ResolvedNetwork resolve_network(const NetworkSpec& spec);

}  // namespace kp
