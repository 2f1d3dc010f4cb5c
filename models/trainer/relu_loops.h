#pragma once
// The ReLU's element loops, shared by the ReLU layer (simple_layers.cpp), the dense layer's
// fused epilogues (dense.cpp) and the max-pool that takes the ReLU after it, so that all
// compute the same values: y = x > 0 ? x : 0 (not std::max: NaN and -0 map to +0) and
// dx = y > 0 ? dy : 0. Branch-free and on restrict-qualified pointers, so that GCC vectorises
// them: the plain `dx[i] = y[i] > 0 ? dy[i] : 0` inside a lambda loaded dy only on one side of
// the branch, so it stayed a scalar loop that mispredicted on half the elements and re-read the
// lambda's captures after every store (6 ns an element: 11% of an MLP b=1024 step on 2
// threads). n contiguous elements each. Internal to kp_trainer.
#include <cstdint>

namespace kp::trainer_detail {

// One element of each, for a loop of another layer that fuses the ReLU (the max-pool's).
template <class T>
inline T relu_value(T x) {
  return x > T(0) ? x : T(0);
}
template <class T>
inline T relu_grad(T y, T dy) {
  return y > T(0) ? dy : T(0);
}

template <class T>
void relu_forward(const T* __restrict x, T* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = relu_value(x[i]);
}
// The same after adding bias[i] to x[i], as the dense layer adds its bias.
template <class T>
void bias_relu_forward(const T* __restrict x, const T* __restrict bias, T* __restrict y,
                       int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = relu_value(x[i] + bias[i]);
}
template <class T>
void relu_backward(const T* __restrict y, const T* __restrict dy, T* __restrict dx, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dx[i] = relu_grad(y[i], dy[i]);
}

}  // namespace kp::trainer_detail
