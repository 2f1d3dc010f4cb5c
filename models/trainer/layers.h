#pragma once
// The interface every layer has, reference or fused (fused_layer.h adds the fast path's hooks).
// Internal to kp_trainer; Eigen-free, so that tests may hold layers through it. Contract:
// activations of a batch are a column-major matrix (features, batch), one column per sample,
// features channels-last (HWC) so that a convolution's GEMM output (filters, pixels*batch)
// already is the next layer's input. A layer's parameters are
// views into the network's one flat parameter array; backward() overwrites (never accumulates)
// its parameter gradient and, when dx is not null, writes the input gradient. forward() may keep
// what backward() needs (one backward per training forward, with the same x and y).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <type_traits>

#include "core/network_spec.h"
#include "core/workload_spec.h"

namespace kp::trainer_detail {

template <class T>
class Layer {
 public:
  virtual ~Layer() = default;
  int64_t param_count() const { return m_params; }
  void bind(T* w, T* dw) {
    m_w = w;
    m_dw = dw;
  }
  virtual void init(std::mt19937_64& /*rng*/, WeightInit /*kind*/) {}
  virtual void forward(const T* x, T* y, int64_t batch) = 0;
  virtual void backward(const T* x, const T* y, const T* dy, T* dx, int64_t batch) = 0;
  // Training (batch statistics, dropout on) or evaluation (running statistics, dropout off);
  // a layer holding layers passes it on.
  virtual void set_training(bool on) { m_training = on; }

 protected:
  bool m_training = true;
  int64_t m_params = 0;
  T* m_w = nullptr;
  T* m_dw = nullptr;
};

// TensorFlow's "same": the total padding is split with the extra row/column at the end.
inline int64_t pad_before(int64_t in, int64_t out, int64_t kernel, int64_t stride, Padding p) {
  if (p == Padding::Valid) return 0;
  return std::max<int64_t>((out - 1) * stride + kernel - in, 0) / 2;
}

// N(0, sd^2) by Box-Muller on the raw engine output (portable: see layers.cpp).
template <class T>
void normal_fill(T* w, int64_t n, double sd, std::mt19937_64& rng);
// He et al. 2015 ("Delving deep into rectifiers"): N(0, 2/fan_in), suited to ReLU networks.
template <class T>
void he_normal(T* w, int64_t n, int64_t fan_in, std::mt19937_64& rng);
// Glorot & Bengio 2010 ("Understanding the difficulty of training deep feedforward neural
// networks", eq. 16): U(-a, a), a = sqrt(6 / (fan_in + fan_out)).
template <class T>
void glorot_uniform(T* w, int64_t n, int64_t fan_in, int64_t fan_out, std::mt19937_64& rng);
template <class T>
void init_weights(WeightInit kind, T* w, int64_t n, int64_t fan_in, int64_t fan_out,
                  std::mt19937_64& rng) {
  if (kind == WeightInit::Glorot)
    glorot_uniform(w, n, fan_in, fan_out, rng);
  else
    he_normal(w, n, fan_in, rng);
}

}  // namespace kp::trainer_detail
