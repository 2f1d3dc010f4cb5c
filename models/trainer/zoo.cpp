#include "models/trainer/zoo.h"

namespace kp {

namespace {

LayerSpec layer(LayerKind kind, const char* name) {
  LayerSpec l;
  l.kind = kind;
  l.name = name;
  return l;
}
LayerSpec dense(const char* name, int64_t units) {
  LayerSpec l = layer(LayerKind::Dense, name);
  l.units = units;
  return l;
}
LayerSpec conv(const char* name, int64_t filters, int64_t kernel) {
  LayerSpec l = layer(LayerKind::Conv2d, name);
  l.filters = filters;
  l.kernel = kernel;
  l.padding = Padding::Same;
  return l;
}
LayerSpec pool2(const char* name) {
  LayerSpec l = layer(LayerKind::MaxPool, name);
  l.kernel = 2;
  l.stride = 2;
  return l;
}

}  // namespace

NetworkSpec mlp_784_256_256_10() {
  NetworkSpec n;
  n.input = Shape{1, 28, 28};
  n.classes = 10;
  n.layers = {layer(LayerKind::Flatten, "flatten"), dense("fc1", 256), layer(LayerKind::Relu, "r1"),
              dense("fc2", 256), layer(LayerKind::Relu, "r2"), dense("fc3", 10),
              layer(LayerKind::SoftmaxCrossEntropy, "loss")};
  return n;
}

NetworkSpec simple_cnn() {
  NetworkSpec n;
  n.input = Shape{1, 28, 28};
  n.classes = 10;
  n.layers = {conv("conv1", 32, 5), layer(LayerKind::Relu, "r1"), pool2("pool1"),
              conv("conv2", 64, 5), layer(LayerKind::Relu, "r2"), pool2("pool2"),
              layer(LayerKind::Flatten, "flatten"), dense("fc1", 1024),
              layer(LayerKind::Relu, "r3"), dense("fc2", 10),
              layer(LayerKind::SoftmaxCrossEntropy, "loss")};
  return n;
}

}  // namespace kp
