#pragma once
// A network as layers, the way workloads/*.yaml write it, and its shape-resolved form. Contract:
// resolve_network() infers every tensor shape from the input, expands `repeat:` blocks and checks
// that each layer fits its input (e.g. a dense layer after a conv needs a flatten); the result is
// what both the simulator (through lower_training_step) and the trainer build from.
#include <cstdint>
#include <string>
#include <vector>

namespace kp {

enum class LayerKind {
  Dense, Conv2d, MaxPool, AvgPool, GlobalAvgPool, Relu, BatchNorm, Flatten, SoftmaxCrossEntropy,
  Residual  // body(x) + shortcut(x); an empty shortcut is the identity
};
enum class Padding { Same, Valid };

const char* layer_kind_name(LayerKind k);

struct LayerSpec {
  LayerKind kind = LayerKind::Relu;
  std::string name;
  int64_t units = 0;            // dense
  int64_t filters = 0;          // conv2d
  int64_t kernel = 1;           // conv2d, pools: square window
  int64_t stride = 1;
  Padding padding = Padding::Valid;
  bool bias = true;             // dense, conv2d
  std::vector<LayerSpec> body;      // residual
  std::vector<LayerSpec> shortcut;  // residual
};

// Channels-height-width; a feature vector is {features, 1, 1}.
struct Shape {
  int64_t c = 0, h = 0, w = 0;
  int64_t elements() const { return c * h * w; }
  bool operator==(const Shape& o) const { return c == o.c && h == o.h && w == o.w; }
};

// One layer with its shapes resolved. Residual blocks are flattened: `residual_begin` marks where
// a block starts (its input is saved), and a ResidualAdd-like join is the layer with
// kind == Residual, which adds the saved input (through `shortcut_layers`, resolved) to its input.
struct ResolvedLayer {
  LayerSpec spec;               // body/shortcut cleared; see below for residuals
  Shape in, out;
  int64_t params = 0;           // trainable parameters (weights + biases)
  int64_t block_start = -1;     // for Residual: index of the first layer of the body
  std::vector<ResolvedLayer> shortcut;  // for Residual: the projection path, resolved
};

struct NetworkSpec {
  Shape input;
  int64_t classes = 0;
  std::vector<LayerSpec> layers;
};

struct ResolvedNetwork {
  Shape input;
  std::vector<ResolvedLayer> layers;
  int64_t params = 0;
};

// Throws std::invalid_argument with the layer name on an impossible shape.
ResolvedNetwork resolve_network(const NetworkSpec& spec);

}  // namespace kp
