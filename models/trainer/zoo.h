#pragma once
// The two reference networks of the benchmark and the learning check, for 28x28x1 inputs and 10
// classes: the 784-256-256-10 MLP and Shallue et al. 2019's "Simple CNN" on Fashion-MNIST
// (conv5x5x32 same, relu, maxpool2, conv5x5x64 same, relu, maxpool2, fc1024, relu, fc10).
#include "core/network_spec.h"

namespace kp {

NetworkSpec mlp_784_256_256_10();
NetworkSpec simple_cnn();

}  // namespace kp
