// GCC 12 flags its own AVX-512 intrinsics (_mm512_undefined_ps) inside Eigen's float packing.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "models/trainer/reference_layers.h"

#include <Eigen/Core>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <vector>

#include "models/trainer/batch_norm.h"
#include "models/trainer/eigen_maps.h"

namespace kp::trainer_detail {

namespace {

template <class T>
class Dense final : public Layer<T> {
 public:
  Dense(int64_t in, int64_t out, bool bias) : m_in(in), m_out(out), m_bias(bias) {
    this->m_params = in * out + (bias ? out : 0);
  }
  void init(std::mt19937_64& rng, WeightInit kind) override {
    init_weights(kind, this->m_w, m_in * m_out, m_in, m_out, rng);
    std::fill(this->m_w + m_in * m_out, this->m_w + this->m_params, T(0));
  }
  void forward(const T* x, T* y, int64_t batch) override {
    MatMap<T> Y(y, m_out, batch);
    Y.noalias() = ConstMatMap<T>(this->m_w, m_out, m_in) * ConstMatMap<T>(x, m_in, batch);
    if (m_bias) Y.colwise() += ConstVecMap<T>(this->m_w + m_in * m_out, m_out);
  }
  void backward(const T* x, const T*, const T* dy, T* dx, int64_t batch) override {
    const ConstMatMap<T> dY(dy, m_out, batch);
    MatMap<T>(this->m_dw, m_out, m_in).noalias() =
        dY * ConstMatMap<T>(x, m_in, batch).transpose();
    if (m_bias) VecMap<T>(this->m_dw + m_in * m_out, m_out) = dY.rowwise().sum();
    if (dx)
      MatMap<T>(dx, m_in, batch).noalias() =
          ConstMatMap<T>(this->m_w, m_out, m_in).transpose() * dY;
  }

 private:
  int64_t m_in, m_out;
  bool m_bias;
};

// Samples per product: the columns of at most 2^18 floats (or one sample), whatever the batch,
// so that the buffer is allocated once. The chunk fixes the weight gradient's summation order.
template <class T>
class Conv2d final : public Layer<T> {
 public:
  explicit Conv2d(const ResolvedLayer& l)
      : m_c(l.in.c), m_h(l.in.h), m_wi(l.in.w), m_f(l.out.c), m_ho(l.out.h), m_wo(l.out.w),
        m_k(l.spec.kernel), m_s(l.spec.stride), m_kk(m_k * m_k * m_c), m_bias(l.spec.bias) {
    m_pt = pad_before(m_h, m_ho, m_k, m_s, l.spec.padding);
    m_pl = pad_before(m_wi, m_wo, m_k, m_s, l.spec.padding);
    this->m_params = m_f * m_kk + (m_bias ? m_f : 0);
    const int64_t per = m_kk * m_ho * m_wo;
    m_chunk = std::max<int64_t>((int64_t{1} << 18) / std::max<int64_t>(per, 1), 1);
    m_cols.resize(static_cast<size_t>(per * m_chunk));
  }
  void init(std::mt19937_64& rng, WeightInit kind) override {
    init_weights(kind, this->m_w, m_f * m_kk, m_kk, m_k * m_k * m_f, rng);
    std::fill(this->m_w + m_f * m_kk, this->m_w + this->m_params, T(0));
  }
  void forward(const T* x, T* y, int64_t batch) override {
    const ConstMatMap<T> W(this->m_w, m_f, m_kk);
    for (int64_t n0 = 0; n0 < batch; n0 += m_chunk) {
      const int64_t nb = std::min(m_chunk, batch - n0), q = m_ho * m_wo * nb;
      to_columns(x, n0, nb);
      MatMap<T> Y(y + n0 * m_ho * m_wo * m_f, m_f, q);
      Y.noalias() = W * ConstMatMap<T>(m_cols.data(), m_kk, q);
      if (m_bias) Y.colwise() += ConstVecMap<T>(this->m_w + m_f * m_kk, m_f);
    }
  }
  void backward(const T* x, const T*, const T* dy, T* dx, int64_t batch) override {
    MatMap<T> dW(this->m_dw, m_f, m_kk);
    VecMap<T> db(this->m_dw + m_f * m_kk, m_bias ? m_f : 0);
    dW.setZero();
    db.setZero();
    if (dx) std::fill(dx, dx + batch * m_h * m_wi * m_c, T(0));
    const ConstMatMap<T> W(this->m_w, m_f, m_kk);
    for (int64_t n0 = 0; n0 < batch; n0 += m_chunk) {  // chunk by chunk, in order
      const int64_t nb = std::min(m_chunk, batch - n0), q = m_ho * m_wo * nb;
      const ConstMatMap<T> dY(dy + n0 * m_ho * m_wo * m_f, m_f, q);
      to_columns(x, n0, nb);
      dW.noalias() += dY * ConstMatMap<T>(m_cols.data(), m_kk, q).transpose();
      if (m_bias) db += dY.rowwise().sum();
      if (!dx) continue;
      MatMap<T>(m_cols.data(), m_kk, q).noalias() = W.transpose() * dY;
      add_columns(dx, n0, nb);
    }
  }

 private:
  // Calls f(column, offset in x or -1 for padding) for each entry of the chunk's columns, in
  // (n, oh, ow, kh, kw, c) order.
  template <class F>
  void for_each_entry(int64_t n0, int64_t nb, F&& f) const {
    int64_t col = 0;
    for (int64_t n = n0; n < n0 + nb; ++n)
      for (int64_t oh = 0; oh < m_ho; ++oh)
        for (int64_t ow = 0; ow < m_wo; ++ow)
          for (int64_t kh = 0; kh < m_k; ++kh)
            for (int64_t kw = 0; kw < m_k; ++kw) {
              const int64_t ih = oh * m_s - m_pt + kh, iw = ow * m_s - m_pl + kw;
              const bool in = ih >= 0 && ih < m_h && iw >= 0 && iw < m_wi;
              const int64_t off = ((n * m_h + ih) * m_wi + iw) * m_c;
              for (int64_t c = 0; c < m_c; ++c) f(col++, in ? off + c : -1);
            }
  }
  void to_columns(const T* x, int64_t n0, int64_t nb) {
    T* cols = m_cols.data();
    for_each_entry(n0, nb, [&](int64_t i, int64_t off) { cols[i] = off < 0 ? T(0) : x[off]; });
  }
  void add_columns(T* dx, int64_t n0, int64_t nb) const {
    const T* cols = m_cols.data();
    for_each_entry(n0, nb, [&](int64_t i, int64_t off) {
      if (off >= 0) dx[off] += cols[i];
    });
  }

  int64_t m_c, m_h, m_wi, m_f, m_ho, m_wo, m_k, m_s, m_kk, m_pt = 0, m_pl = 0, m_chunk = 1;
  bool m_bias;
  std::vector<T> m_cols;
};

template <class T>
class MaxPool final : public Layer<T> {
 public:
  MaxPool(const ResolvedLayer& l, int64_t max_batch)
      : m_c(l.in.c), m_h(l.in.h), m_wi(l.in.w), m_ho(l.out.h), m_wo(l.out.w),
        m_k(l.spec.kernel), m_s(l.spec.stride) {
    m_pt = pad_before(m_h, m_ho, m_k, m_s, l.spec.padding);
    m_pl = pad_before(m_wi, m_wo, m_k, m_s, l.spec.padding);
    m_arg.resize(static_cast<size_t>(max_batch * m_ho * m_wo * m_c));
  }
  void forward(const T* x, T* y, int64_t batch) override {
    int64_t o = 0;
    for (int64_t n = 0; n < batch; ++n)
      for (int64_t oh = 0; oh < m_ho; ++oh)
        for (int64_t ow = 0; ow < m_wo; ++ow)
          for (int64_t c = 0; c < m_c; ++c, ++o) {
            T best = -std::numeric_limits<T>::infinity();
            int64_t arg = -1;
            for (int64_t kh = 0; kh < m_k; ++kh)
              for (int64_t kw = 0; kw < m_k; ++kw) {
                const int64_t ih = oh * m_s - m_pt + kh, iw = ow * m_s - m_pl + kw;
                if (ih < 0 || ih >= m_h || iw < 0 || iw >= m_wi) continue;
                const int64_t off = ((n * m_h + ih) * m_wi + iw) * m_c + c;
                if (arg < 0 || x[off] > best) {
                  best = x[off];
                  arg = off;
                }
              }
            y[o] = best;
            m_arg[static_cast<size_t>(o)] = arg;
          }
  }
  void backward(const T*, const T*, const T* dy, T* dx, int64_t batch) override {
    if (!dx) return;
    std::fill(dx, dx + batch * m_h * m_wi * m_c, T(0));
    for (int64_t o = 0, n = batch * m_ho * m_wo * m_c; o < n; ++o)
      dx[m_arg[static_cast<size_t>(o)]] += dy[o];
  }

 private:
  int64_t m_c, m_h, m_wi, m_ho, m_wo, m_k, m_s, m_pt = 0, m_pl = 0;
  std::vector<int64_t> m_arg;
};

template <class T>
class Relu final : public Layer<T> {
 public:
  explicit Relu(int64_t size) : m_size(size) {}
  void forward(const T* x, T* y, int64_t batch) override {
    for (int64_t i = 0, n = m_size * batch; i < n; ++i) y[i] = x[i] > T(0) ? x[i] : T(0);
  }
  void backward(const T*, const T* y, const T* dy, T* dx, int64_t batch) override {
    if (!dx) return;
    for (int64_t i = 0, n = m_size * batch; i < n; ++i) dx[i] = y[i] > T(0) ? dy[i] : T(0);
  }

 private:
  int64_t m_size;
};

template <class T>
class Flatten final : public Layer<T> {
 public:
  explicit Flatten(int64_t size) : m_size(size) {}
  void forward(const T* x, T* y, int64_t batch) override {
    if (x != y) std::copy(x, x + m_size * batch, y);
  }
  void backward(const T*, const T*, const T* dy, T* dx, int64_t batch) override {
    if (dx && dx != dy) std::copy(dy, dy + m_size * batch, dx);
  }

 private:
  int64_t m_size;
};

}  // namespace

template <class T>
std::unique_ptr<Layer<T>> make_reference_dense(int64_t inputs, int64_t outputs, bool bias) {
  return std::make_unique<Dense<T>>(inputs, outputs, bias);
}
template <class T>
std::unique_ptr<Layer<T>> make_reference_conv2d(const ResolvedLayer& l) {
  return std::make_unique<Conv2d<T>>(l);
}

template <class T>
std::unique_ptr<Layer<T>> make_reference_layer(const ResolvedLayer& l, int64_t max_batch) {
  switch (l.spec.kind) {
    case LayerKind::Dense: return make_reference_dense<T>(l.in.elements(), l.spec.units, l.spec.bias);
    case LayerKind::Conv2d: return make_reference_conv2d<T>(l);
    case LayerKind::MaxPool: return std::make_unique<MaxPool<T>>(l, max_batch);
    case LayerKind::Relu: return std::make_unique<Relu<T>>(l.in.elements());
    case LayerKind::Flatten: return std::make_unique<Flatten<T>>(l.in.elements());
    case LayerKind::BatchNorm: return make_batch_norm<T>(l);  // plain loops already
    default:
      throw std::invalid_argument("layer \"" + l.spec.name + "\": the trainer has no " +
                                  layer_kind_name(l.spec.kind) + " layer");
  }
}

#define KP_REFERENCE_LAYERS(T)                                                               \
  template std::unique_ptr<Layer<T>> make_reference_dense<T>(int64_t, int64_t, bool);      \
  template std::unique_ptr<Layer<T>> make_reference_conv2d<T>(const ResolvedLayer&);       \
  template std::unique_ptr<Layer<T>> make_reference_layer<T>(const ResolvedLayer&, int64_t);
KP_REFERENCE_LAYERS(float)
KP_REFERENCE_LAYERS(double)
#undef KP_REFERENCE_LAYERS

}  // namespace kp::trainer_detail
