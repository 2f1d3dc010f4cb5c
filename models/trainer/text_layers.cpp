// GCC 12 flags its own AVX-512 intrinsics (_mm512_undefined_ps) inside Eigen's float packing.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "models/trainer/text_layers.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "models/trainer/eigen_maps.h"
#include "models/trainer/splitmix.h"

namespace kp::trainer_detail {

namespace {

template <class T>
class Embedding final : public Layer<T> {
 public:
  Embedding(int64_t vocab, int64_t d, int64_t context) : m_v(vocab), m_d(d), m_t(context) {
    this->m_params = d * (vocab + context);
  }
  void init(std::mt19937_64& rng, WeightInit) override {
    normal_fill(this->m_w, this->m_params, 0.02, rng);
  }
  void forward(const T* x, T* y, int64_t cols) override {
    const T* pos = this->m_w + m_d * m_v;
    for (int64_t c = 0; c < cols; ++c) {
      const T* e = this->m_w + id(x[c]) * m_d;
      const T* p = pos + (c % m_t) * m_d;
      for (int64_t i = 0; i < m_d; ++i) y[c * m_d + i] = e[i] + p[i];
    }
  }
  void backward(const T* x, const T*, const T* dy, T* dx, int64_t cols) override {
    std::fill(this->m_dw, this->m_dw + this->m_params, T(0));
    T* dpos = this->m_dw + m_d * m_v;
    for (int64_t c = 0; c < cols; ++c) {  // column order: a fixed order of the additions
      T* de = this->m_dw + id(x[c]) * m_d;
      T* dp = dpos + (c % m_t) * m_d;
      for (int64_t i = 0; i < m_d; ++i) {
        de[i] += dy[c * m_d + i];
        dp[i] += dy[c * m_d + i];
      }
    }
    if (dx) std::fill(dx, dx + cols, T(0));
  }

 private:
  int64_t id(T v) const {
    const int64_t i = static_cast<int64_t>(v);
    if (!(v >= 0) || i >= m_v || T(i) != v)
      throw std::out_of_range("embedding: token id " + std::to_string(double(v)) +
                              " outside [0, " + std::to_string(m_v) + ")");
    return i;
  }
  int64_t m_v, m_d, m_t;
};

template <class T>
class LayerNorm final : public Layer<T> {
 public:
  LayerNorm(int64_t d, int64_t max_tokens)
      : m_d(d), m_xhat(static_cast<size_t>(d * max_tokens)),
        m_inv(static_cast<size_t>(max_tokens)) {
    this->m_params = 2 * d;
  }
  void init(std::mt19937_64&, WeightInit) override {
    std::fill(this->m_w, this->m_w + m_d, T(1));
    std::fill(this->m_w + m_d, this->m_w + 2 * m_d, T(0));
  }
  void forward(const T* x, T* y, int64_t cols) override {
    const T *g = this->m_w, *b = this->m_w + m_d;
    for (int64_t c = 0; c < cols; ++c) {
      const T* xc = x + c * m_d;
      double mean = 0, var = 0;  // two passes, in double
      for (int64_t i = 0; i < m_d; ++i) mean += xc[i];
      mean /= double(m_d);
      for (int64_t i = 0; i < m_d; ++i) var += (xc[i] - mean) * (xc[i] - mean);
      const double inv = 1.0 / std::sqrt(var / double(m_d) + 1e-5);
      m_inv[size_t(c)] = inv;
      T* h = m_xhat.data() + c * m_d;
      for (int64_t i = 0; i < m_d; ++i) {
        h[i] = T((xc[i] - mean) * inv);
        y[c * m_d + i] = g[i] * h[i] + b[i];
      }
    }
  }
  // dx = inv_std (dxhat - mean(dxhat) - xhat mean(dxhat xhat)), dxhat = dy gamma.
  void backward(const T*, const T*, const T* dy, T* dx, int64_t cols) override {
    const T* g = this->m_w;
    T *dg = this->m_dw, *db = this->m_dw + m_d;
    std::fill(this->m_dw, this->m_dw + 2 * m_d, T(0));
    for (int64_t c = 0; c < cols; ++c) {
      const T *h = m_xhat.data() + c * m_d, *dyc = dy + c * m_d;
      double s1 = 0, s2 = 0;
      for (int64_t i = 0; i < m_d; ++i) {
        dg[i] += dyc[i] * h[i];
        db[i] += dyc[i];
        s1 += double(dyc[i]) * g[i];
        s2 += double(dyc[i]) * g[i] * h[i];
      }
      if (!dx) continue;
      s1 /= double(m_d);
      s2 /= double(m_d);
      for (int64_t i = 0; i < m_d; ++i)
        dx[c * m_d + i] = T(m_inv[size_t(c)] * (double(dyc[i]) * g[i] - s1 - h[i] * s2));
    }
  }

 private:
  int64_t m_d;
  std::vector<T> m_xhat;
  std::vector<double> m_inv;
};

template <class T>
class Gelu final : public Layer<T> {
 public:
  explicit Gelu(int64_t features) : m_f(features) {}
  void forward(const T* x, T* y, int64_t cols) override {
    for (int64_t i = 0, n = m_f * cols; i < n; ++i)
      y[i] = T(0.5 * x[i] * (1.0 + std::erf(x[i] * M_SQRT1_2)));
  }
  void backward(const T* x, const T*, const T* dy, T* dx, int64_t cols) override {
    if (!dx) return;
    const double k = 0.5 * M_2_SQRTPI * M_SQRT1_2;  // 1 / sqrt(2 pi)
    for (int64_t i = 0, n = m_f * cols; i < n; ++i) {
      const double v = x[i];
      dx[i] = T(dy[i] * (0.5 * (1.0 + std::erf(v * M_SQRT1_2)) + v * k * std::exp(-0.5 * v * v)));
    }
  }

 private:
  int64_t m_f;
};

template <class T>
class Dropout final : public Layer<T> {
 public:
  Dropout(int64_t features, double p, uint64_t seed) : m_f(features), m_p(p), m_seed(seed) {
    if (!(p >= 0 && p < 1)) throw std::invalid_argument("dropout: p must be in [0, 1)");
    // Drop where the 53-bit draw is below p * 2^53: exact for any p, portable.
    m_cut = static_cast<uint64_t>(std::ldexp(p, 53));
  }
  void forward(const T* x, T* y, int64_t cols) override {
    const int64_t n = m_f * cols;
    m_dropping = this->m_training && m_p > 0;
    if (!m_dropping) {
      std::copy(x, x + n, y);
      return;
    }
    m_base = splitmix64(m_seed ^ (m_draws++ * kSplitMixGamma));
    const T scale = T(1.0 / (1.0 - m_p));
    for (int64_t i = 0; i < n; ++i) y[i] = kept(i) ? x[i] * scale : T(0);
  }
  void backward(const T*, const T*, const T* dy, T* dx, int64_t cols) override {
    if (!dx) return;
    const int64_t n = m_f * cols;
    if (!m_dropping) {
      std::copy(dy, dy + n, dx);
      return;
    }
    const T scale = T(1.0 / (1.0 - m_p));
    for (int64_t i = 0; i < n; ++i) dx[i] = kept(i) ? dy[i] * scale : T(0);
  }

 private:
  bool kept(int64_t i) const {
    return (splitmix64(m_base + static_cast<uint64_t>(i)) >> 11) >= m_cut;
  }
  int64_t m_f;
  double m_p;
  uint64_t m_seed, m_cut = 0, m_draws = 0;
  uint64_t m_base = 0;  // the hash of the last training forward's draw
  bool m_dropping = false;
};

template <class T>
class Residual final : public Layer<T> {
 public:
  Residual(int64_t features, std::vector<SizedLayer<T>> inner, int64_t max_tokens)
      : m_f(features) {
    if (inner.empty() || inner.back().second != features)
      throw std::invalid_argument("residual: the branch must give its input's features back");
    for (auto& [layer, out] : inner) {
      this->m_params += layer->param_count();
      m_acts.emplace_back(static_cast<size_t>(out * max_tokens));
      m_dacts.emplace_back(static_cast<size_t>(out * max_tokens));
      m_inner.push_back(std::move(layer));
    }
    m_dx.resize(static_cast<size_t>(features * max_tokens));
  }
  void set_training(bool on) override {
    for (auto& l : m_inner) l->set_training(on);
  }
  void init(std::mt19937_64& rng, WeightInit kind) override {
    bind_inner();
    for (auto& l : m_inner) l->init(rng, kind);
  }
  void forward(const T* x, T* y, int64_t cols) override {
    bind_inner();
    for (size_t i = 0; i < m_inner.size(); ++i)
      m_inner[i]->forward(i ? m_acts[i - 1].data() : x, m_acts[i].data(), cols);
    const T* f = m_acts.back().data();
    for (int64_t i = 0, n = m_f * cols; i < n; ++i) y[i] = x[i] + f[i];
  }
  void backward(const T* x, const T*, const T* dy, T* dx, int64_t cols) override {
    const int64_t n = m_f * cols;
    bind_inner();
    std::copy(dy, dy + n, m_dacts.back().data());
    for (size_t i = m_inner.size(); i-- > 0;)
      m_inner[i]->backward(i ? m_acts[i - 1].data() : x, m_acts[i].data(), m_dacts[i].data(),
                           i ? m_dacts[i - 1].data() : m_dx.data(), cols);
    if (dx)
      for (int64_t i = 0; i < n; ++i) dx[i] = dy[i] + m_dx[size_t(i)];
  }

 private:
  // Layer::bind is not virtual (one flat array per network): the inner layers' views are set
  // from this one's before each use (a few pointers).
  void bind_inner() {
    int64_t off = 0;
    for (auto& l : m_inner) {
      l->bind(this->m_w + off, this->m_dw + off);
      off += l->param_count();
    }
  }
  int64_t m_f;
  std::vector<std::unique_ptr<Layer<T>>> m_inner;
  std::vector<std::vector<T>> m_acts, m_dacts;  // each inner layer's output and its gradient
  std::vector<T> m_dx;
};

}  // namespace

template <class T>
std::unique_ptr<Layer<T>> make_embedding(int64_t vocab, int64_t d, int64_t context) {
  return std::make_unique<Embedding<T>>(vocab, d, context);
}
template <class T>
std::unique_ptr<Layer<T>> make_layer_norm(int64_t d, int64_t max_tokens) {
  return std::make_unique<LayerNorm<T>>(d, max_tokens);
}
template <class T>
std::unique_ptr<Layer<T>> make_gelu(int64_t features) {
  return std::make_unique<Gelu<T>>(features);
}
template <class T>
std::unique_ptr<Layer<T>> make_dropout(int64_t features, double p, uint64_t seed) {
  return std::make_unique<Dropout<T>>(features, p, seed);
}
template <class T>
std::unique_ptr<Layer<T>> make_residual(int64_t features, std::vector<SizedLayer<T>> inner,
                                        int64_t max_tokens) {
  return std::make_unique<Residual<T>>(features, std::move(inner), max_tokens);
}

#define KP_TEXT_LAYERS(T)                                                                      \
  template std::unique_ptr<Layer<T>> make_embedding<T>(int64_t, int64_t, int64_t);            \
  template std::unique_ptr<Layer<T>> make_layer_norm<T>(int64_t, int64_t);                    \
  template std::unique_ptr<Layer<T>> make_gelu<T>(int64_t);                                   \
  template std::unique_ptr<Layer<T>> make_dropout<T>(int64_t, double, uint64_t);              \
  template std::unique_ptr<Layer<T>> make_residual<T>(int64_t, std::vector<SizedLayer<T>>,    \
                                                      int64_t);
KP_TEXT_LAYERS(float)
KP_TEXT_LAYERS(double)
#undef KP_TEXT_LAYERS

}  // namespace kp::trainer_detail
