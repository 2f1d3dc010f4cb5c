// GCC 12 flags its own AVX-512 intrinsics (_mm512_undefined_ps) inside Eigen's float packing.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/trainer/eigen_maps.h"
#include "models/trainer/text_layers.h"

namespace kp::trainer_detail {

namespace {

// Per sequence n and head h, with Q, K, V the head's rows (dh x T) of the sequence's columns:
// S = Q^T K / sqrt(dh) (queries x keys), P = causal row softmax of S, O_h = V P^T. Backward:
// dV = dO P, dP = dO^T V, dS = P .* (dP - rowsum(P .* dP)), dQ = K dS^T / sqrt(dh),
// dK = Q dS / sqrt(dh). The softmax rows are computed in double from the max-shifted scores.
template <class T>
class CausalAttention final : public Layer<T> {
 public:
  CausalAttention(int64_t d, int64_t heads, int64_t context, int64_t max_tokens)
      : m_d(d), m_h(heads), m_t(context), m_dh(heads > 0 ? d / heads : 0) {
    if (heads < 1 || d % heads != 0)
      throw std::invalid_argument("attention: " + std::to_string(heads) +
                                  " heads do not divide d_model " + std::to_string(d));
    this->m_params = 3 * d * d + 3 * d + d * d + d;
    const size_t cols = static_cast<size_t>(max_tokens);
    m_qkv.resize(3 * size_t(d) * cols);
    m_dqkv.resize(3 * size_t(d) * cols);
    m_o.resize(size_t(d) * cols);
    m_do.resize(size_t(d) * cols);
    m_p.resize(size_t(heads) * cols * size_t(context));
    m_dp.resize(size_t(context * context));
    m_row.resize(size_t(context));
  }
  void init(std::mt19937_64& rng, WeightInit kind) override {
    T* w = this->m_w;
    init_weights(kind, w, 3 * m_d * m_d, m_d, 3 * m_d, rng);
    std::fill(w + 3 * m_d * m_d, w + 3 * m_d * m_d + 3 * m_d, T(0));
    init_weights(kind, wo(w), m_d * m_d, m_d, m_d, rng);
    std::fill(wo(w) + m_d * m_d, wo(w) + m_d * m_d + m_d, T(0));
  }
  void forward(const T* x, T* y, int64_t cols) override {
    check(cols);
    const T* w = this->m_w;
    MatMap<T> qkv(m_qkv.data(), 3 * m_d, cols);
    qkv.noalias() = ConstMatMap<T>(w, 3 * m_d, m_d) * ConstMatMap<T>(x, m_d, cols);
    qkv.colwise() += ConstVecMap<T>(w + 3 * m_d * m_d, 3 * m_d);
    MatMap<T> o(m_o.data(), m_d, cols);
    const T scale = T(1.0 / std::sqrt(double(m_dh)));
    for (int64_t n = 0; n < cols / m_t; ++n)
      for (int64_t h = 0; h < m_h; ++h) {
        MatMap<T> p = probs(n, h);
        p.noalias() = scale * head(qkv, 0, h, n).transpose() * head(qkv, 1, h, n);
        for (int64_t i = 0; i < m_t; ++i) causal_softmax_row(p, i);
        head(o, 0, h, n).noalias() = head(qkv, 2, h, n) * p.transpose();
      }
    MatMap<T> out(y, m_d, cols);
    out.noalias() = ConstMatMap<T>(wo(w), m_d, m_d) * o;
    out.colwise() += ConstVecMap<T>(wo(w) + m_d * m_d, m_d);
  }
  void backward(const T* x, const T*, const T* dy, T* dx, int64_t cols) override {
    const T* w = this->m_w;
    T* dw = this->m_dw;
    const ConstMatMap<T> dY(dy, m_d, cols), X(x, m_d, cols);
    MatMap<T>(wo(dw), m_d, m_d).noalias() = dY * MatMap<T>(m_o.data(), m_d, cols).transpose();
    VecMap<T>(wo(dw) + m_d * m_d, m_d) = dY.rowwise().sum();
    MatMap<T> dO(m_do.data(), m_d, cols), qkv(m_qkv.data(), 3 * m_d, cols);
    MatMap<T> dqkv(m_dqkv.data(), 3 * m_d, cols);
    dO.noalias() = ConstMatMap<T>(wo(w), m_d, m_d).transpose() * dY;
    const T scale = T(1.0 / std::sqrt(double(m_dh)));
    MatMap<T> dp(m_dp.data(), m_t, m_t);
    for (int64_t n = 0; n < cols / m_t; ++n)
      for (int64_t h = 0; h < m_h; ++h) {
        const MatMap<T> p = probs(n, h);
        head(dqkv, 2, h, n).noalias() = head(dO, 0, h, n) * p;
        dp.noalias() = head(dO, 0, h, n).transpose() * head(qkv, 2, h, n);
        for (int64_t i = 0; i < m_t; ++i) {  // dS in place of dP
          double s = 0;
          for (int64_t j = 0; j <= i; ++j) s += double(p(i, j)) * dp(i, j);
          for (int64_t j = 0; j < m_t; ++j) dp(i, j) = j <= i ? T(p(i, j) * (dp(i, j) - s)) : T(0);
        }
        head(dqkv, 0, h, n).noalias() = scale * head(qkv, 1, h, n) * dp.transpose();
        head(dqkv, 1, h, n).noalias() = scale * head(qkv, 0, h, n) * dp;
      }
    MatMap<T>(dw, 3 * m_d, m_d).noalias() = dqkv * X.transpose();
    VecMap<T>(dw + 3 * m_d * m_d, 3 * m_d) = dqkv.rowwise().sum();
    if (dx)
      MatMap<T>(dx, m_d, cols).noalias() = ConstMatMap<T>(w, 3 * m_d, m_d).transpose() * dqkv;
  }

 private:
  T* wo(T* w) const { return w + 3 * m_d * m_d + 3 * m_d; }
  const T* wo(const T* w) const { return w + 3 * m_d * m_d + 3 * m_d; }
  void check(int64_t cols) const {
    if (cols % m_t != 0)
      throw std::invalid_argument("attention: " + std::to_string(cols) +
                                  " tokens are not whole sequences of " + std::to_string(m_t));
  }
  // Rows [part * d + h * dh, + dh) of sequence n's columns: q (part 0), k (1) or v (2).
  auto head(MatMap<T>& m, int part, int64_t h, int64_t n) const {
    return m.block(part * m_d + h * m_dh, n * m_t, m_dh, m_t);
  }
  MatMap<T> probs(int64_t n, int64_t h) {
    return MatMap<T>(m_p.data() + ((n * m_h + h) * m_t) * m_t, m_t, m_t);
  }
  void causal_softmax_row(MatMap<T>& p, int64_t i) {
    double mx = -INFINITY, sum = 0;
    for (int64_t j = 0; j <= i; ++j) mx = std::max(mx, double(p(i, j)));
    for (int64_t j = 0; j <= i; ++j) sum += (m_row[size_t(j)] = std::exp(double(p(i, j)) - mx));
    for (int64_t j = 0; j < m_t; ++j) p(i, j) = j <= i ? T(m_row[size_t(j)] / sum) : T(0);
  }

  int64_t m_d, m_h, m_t, m_dh;
  std::vector<T> m_qkv, m_dqkv, m_o, m_do, m_p, m_dp;
  std::vector<double> m_row;
};

}  // namespace

template <class T>
std::unique_ptr<Layer<T>> make_causal_attention(int64_t d, int64_t heads, int64_t context,
                                                int64_t max_tokens) {
  return std::make_unique<CausalAttention<T>>(d, heads, context, max_tokens);
}

template std::unique_ptr<Layer<float>> make_causal_attention<float>(int64_t, int64_t, int64_t,
                                                                    int64_t);
template std::unique_ptr<Layer<double>> make_causal_attention<double>(int64_t, int64_t, int64_t,
                                                                      int64_t);

}  // namespace kp::trainer_detail
