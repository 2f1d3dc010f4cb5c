// GCC 12 flags its own AVX-512 intrinsics (_mm512_undefined_ps) inside Eigen's float packing.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "models/trainer/aligned_vector.h"
#include "models/trainer/layers.h"

#include "models/trainer/batch_norm.h"
#include "models/trainer/simple_layers.h"
#include "models/trainer/worker_pool.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace kp::trainer_detail {

namespace {

template <class T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
template <class T>
using MapM = Eigen::Map<Mat<T>>;
template <class T>
using CMapM = Eigen::Map<const Mat<T>>;
template <class T>
using MapV = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>>;

// C (m x n) = op(A) op(B) (+ C): the AVX-512 sgemm for float where built, Eigen otherwise
// (double for the gradient checks, or a CPU without AVX-512).
template <class T>
void gemm(Trans ta, Trans tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
          const T* b, int64_t ldb, T* c, int64_t ldc, bool accumulate, GemmWorkspace& ws) {
  if constexpr (std::is_same_v<T, float>) {
    if (sgemm_available()) return sgemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, accumulate, ws);
  }
  using S = Eigen::OuterStride<>;
  using CMapS = Eigen::Map<const Mat<T>, 0, S>;
  Eigen::Map<Mat<T>, 0, S> C(c, m, n, S(ldc));
  const CMapS A(a, ta == Trans::No ? m : k, ta == Trans::No ? k : m, S(lda));
  const CMapS B(b, tb == Trans::No ? k : n, tb == Trans::No ? n : k, S(ldb));
  auto assign = [&](const auto& product) {
    if (accumulate)
      C.noalias() += product;
    else
      C.noalias() = product;
  };
  if (ta == Trans::No && tb == Trans::No) assign(A * B);
  else if (ta == Trans::No) assign(A * B.transpose());
  else if (tb == Trans::No) assign(A.transpose() * B);
  else assign(A.transpose() * B.transpose());
}

template <class T>
class Dense final : public Layer<T> {
 public:
  Dense(const ResolvedLayer& l, int64_t max_batch, GemmWorkspace* ws)
      : m_in(l.in.elements()), m_out(l.out.elements()), m_bias(l.spec.bias), m_ws(ws) {
    this->m_params = m_in * m_out + (m_bias ? m_out : 0);
    m_ws->reserve(m_out, max_batch, m_in);  // forward
    m_ws->reserve(m_out, m_in, max_batch);  // weight gradient
    m_ws->reserve(m_in, max_batch, m_out);  // input gradient
  }
  void init(std::mt19937_64& rng, WeightInit kind) override {
    init_weights(kind, this->m_w, m_in * m_out, m_in, m_out, rng);
    if (m_bias) std::fill(this->m_w + m_in * m_out, this->m_w + this->m_params, T(0));
  }
  void forward(const T* x, T* y, int64_t batch) override {
    CMapM<T> W(this->m_w, m_out, m_in), X(x, m_in, batch);
    MapM<T> Y(y, m_out, batch);
    if (batch == 1)  // matrix-vector: packing the weights for a GEMM would double the traffic
      Y.col(0).noalias() = W * X.col(0);
    else
      gemm(Trans::No, Trans::No, m_out, batch, m_in, this->m_w, m_out, x, m_in, y, m_out, false,
           *m_ws);
    if (m_bias) Y.colwise() += MapV<T>(this->m_w + m_in * m_out, m_out);
  }
  void backward(const T* x, const T*, const T* dy, T* dx, int64_t batch) override {
    CMapM<T> W(this->m_w, m_out, m_in), X(x, m_in, batch), dY(dy, m_out, batch);
    MapM<T> dW(this->m_dw, m_out, m_in);
    if (this->m_defer_weight_grad && defers_weight_grad<T>(batch)) {
      // formed by the optimizer
    } else if (batch == 1) {
      dW.noalias() = dY.col(0) * X.col(0).transpose();  // an outer product, not a k=1 GEMM
    } else
      gemm(Trans::No, Trans::Yes, m_out, m_in, batch, dy, m_out, x, m_in, this->m_dw, m_out,
           false, *m_ws);
    if (m_bias) MapV<T>(this->m_dw + m_in * m_out, m_out) = dY.rowwise().sum();
    if (!dx) return;
    if (batch == 1)
      MapM<T>(dx, m_in, 1).col(0).noalias() = W.transpose() * dY.col(0);
    else
      gemm(Trans::Yes, Trans::No, m_in, batch, m_out, this->m_w, m_out, dy, m_out, dx, m_in,
           false, *m_ws);
  }
  bool weight_matrix(int64_t* rows, int64_t* cols) const override {
    *rows = m_out;
    *cols = m_in;
    return true;
  }

 private:
  int64_t m_in, m_out;
  bool m_bias;
  GemmWorkspace* m_ws;
};

// im2col + GEMM, in chunks of samples so the column buffer stays cache-sized for any batch: at
// most 2^18 floats (1 MiB, or one sample if larger), half of the Xeon's 2 MiB L2, which leaves
// room for the GEMM's packed panels. With 4 MiB chunks the buffer went to L3 and back: Simple
// CNN b=128 775 -> 839 samples/s (bench_trainer, ten alternating runs each). The chunk sets
// the weight gradient's summation order (its depth), so changing it changes the trajectories.
template <class T>
class Conv2d final : public Layer<T> {
 public:
  Conv2d(const ResolvedLayer& l, int64_t max_batch, GemmWorkspace* ws)
      : m_c(l.in.c), m_h(l.in.h), m_w_in(l.in.w), m_f(l.out.c), m_ho(l.out.h), m_wo(l.out.w),
        m_k(l.spec.kernel), m_s(l.spec.stride), m_bias(l.spec.bias), m_ws(ws) {
    m_pt = pad_before(m_h, m_ho, m_k, m_s, l.spec.padding);
    m_pl = pad_before(m_w_in, m_wo, m_k, m_s, l.spec.padding);
    m_kk = m_k * m_k * m_c;
    this->m_params = m_f * m_kk + (m_bias ? m_f : 0);
    const int64_t per_sample = m_kk * m_ho * m_wo;
    m_chunk = std::clamp<int64_t>((int64_t{1} << 18) / std::max<int64_t>(per_sample, 1), 1,
                                  std::max<int64_t>(max_batch, 1));
    m_col.resize(static_cast<size_t>(per_sample * m_chunk));
    const int64_t cols = m_ho * m_wo * m_chunk;
    m_ws->reserve(m_f, cols, m_kk);  // forward
    m_ws->reserve(m_f, m_kk, cols);  // weight gradient
    m_ws->reserve(m_kk, cols, m_f);  // input gradient (columns)
    if (m_prepack) {
      m_w_packed.reserve(m_f, m_kk);
      m_wt_packed.reserve(m_kk, m_f);
    }
  }
  void init(std::mt19937_64& rng, WeightInit kind) override {
    init_weights(kind, this->m_w, m_f * m_kk, m_kk, m_k * m_k * m_f, rng);
    if (m_bias) std::fill(this->m_w + m_f * m_kk, this->m_w + this->m_params, T(0));
  }
  void forward(const T* x, T* y, int64_t batch) override {
    const int64_t p = m_ho * m_wo;
    pack_weights(Trans::No, m_w_packed);
    for (int64_t n0 = 0; n0 < batch; n0 += m_chunk) {
      const int64_t nb = std::min(m_chunk, batch - n0);
      im2col(x, n0, nb);
      MapM<T> Y(y + n0 * m_f * p, m_f, p * nb);
      weight_product(Trans::No, m_w_packed, p * nb, m_col.data(), m_kk, Y.data(), m_f);
      if (m_bias) Y.colwise() += MapV<T>(this->m_w + m_f * m_kk, m_f);
    }
  }
  void backward(const T* x, const T*, const T* dy, T* dx, int64_t batch) override {
    const int64_t p = m_ho * m_wo;
    if (m_bias) MapV<T>(this->m_dw + m_f * m_kk, m_f).setZero();
    if (dx) {
      std::fill(dx, dx + batch * m_c * m_h * m_w_in, T(0));
      pack_weights(Trans::Yes, m_wt_packed);
    }
    for (int64_t n0 = 0; n0 < batch; n0 += m_chunk) {
      const int64_t nb = std::min(m_chunk, batch - n0);
      im2col(x, n0, nb);
      const T* dyc = dy + n0 * m_f * p;
      gemm(Trans::No, Trans::Yes, m_f, m_kk, p * nb, dyc, m_f, m_col.data(), m_kk, this->m_dw,
           m_f, n0 > 0, *m_ws);
      if (m_bias) MapV<T>(this->m_dw + m_f * m_kk, m_f) += CMapM<T>(dyc, m_f, p * nb).rowwise().sum();
      if (dx) {
        weight_product(Trans::Yes, m_wt_packed, p * nb, dyc, m_f, m_col.data(), m_kk);
        col2im(dx, n0, nb);
      }
    }
  }

 private:
  // For the pixels [q_lo, q_hi) of the chunk that starts at sample n0 (pixel q at column q of
  // the buffer), calls f(col, off, len) for each run of one patch row (fixed n, oh, ow, kh)
  // whose kernel columns fall inside the image: in HWC those len = (kw_hi - kw_lo) * C floats
  // are contiguous in both x (from off) and the column buffer; z(col, len) for the runs in the
  // padding. The order (n, oh, ow, kh, kw, c) is the element-wise order, so col2im adds into
  // each dx element in the same sequence as one element at a time would.
  template <class F, class Z>
  void for_each_patch_row(int64_t n0, int64_t q_lo, int64_t q_hi, F&& f, Z&& z) {
    const int64_t kc = m_k * m_c, pixels = m_ho * m_wo;
    T* col = m_col.data() + q_lo * m_kk;
    int64_t n = n0 + q_lo / pixels, oh = q_lo % pixels / m_wo, ow = q_lo % m_wo;
    for (int64_t q = q_lo; q < q_hi; ++q, col += m_kk) {  // pixel q of the chunk: (n, oh, ow)
      if (q > q_lo && ++ow == m_wo) {
        ow = 0;
        if (++oh == m_ho) {
          oh = 0;
          ++n;
        }
      }
      const int64_t iw0 = ow * m_s - m_pl;
      const int64_t lo = std::clamp<int64_t>(-iw0, 0, m_k);
      const int64_t hi = std::clamp<int64_t>(m_w_in - iw0, lo, m_k);
      for (int64_t kh = 0; kh < m_k; ++kh) {
        T* c = col + kh * kc;
        const int64_t ih = oh * m_s - m_pt + kh;
        if (ih < 0 || ih >= m_h || hi == lo) {
          z(c, kc);
          continue;
        }
        z(c, lo * m_c);
        f(c + lo * m_c, ((n * m_h + ih) * m_w_in + iw0 + lo) * m_c, (hi - lo) * m_c);
        z(c + hi * m_c, (m_k - hi) * m_c);
      }
    }
  }
  // Pixels split across a trial's threads: each writes its own columns.
  void im2col(const T* x, int64_t n0, int64_t nb) {
    parallel_for(m_ws->pool(), nb * m_ho * m_wo, 64, [&](int64_t lo, int64_t hi) {
      for_each_patch_row(
          n0, lo, hi,
          [x](T* col, int64_t off, int64_t len) { std::copy(x + off, x + off + len, col); },
          [](T* col, int64_t len) { std::fill(col, col + len, T(0)); });
    });
  }
  // op(W) (m_f x m_kk or its transpose), packed once a step for the AVX-512 sgemm: conv2 of the
  // Simple CNN runs one product per sample (its chunk), which re-packed all weights each time.
  void pack_weights(Trans op, PackedA& packed) {
    if constexpr (std::is_same_v<T, float>) {
      if (m_prepack)
        packed.pack(op, op == Trans::No ? m_f : m_kk, op == Trans::No ? m_kk : m_f, this->m_w, m_f,
                    m_ws->pool());
    }
  }
  // C (ldc) = op(W) B, B (k x n, ldb) with k the other side of op(W).
  void weight_product(Trans op, const PackedA& packed, int64_t n, const T* b, int64_t ldb, T* c,
                      int64_t ldc) {
    if constexpr (std::is_same_v<T, float>) {
      if (m_prepack) return sgemm(packed, Trans::No, n, b, ldb, c, ldc, false, *m_ws);
    }
    gemm(op, Trans::No, op == Trans::No ? m_f : m_kk, n, op == Trans::No ? m_kk : m_f, this->m_w,
         m_f, b, ldb, c, ldc, false, *m_ws);
  }
  // Split by input rows: neighbouring patches add into the same inputs, so each thread walks
  // every patch row but adds only those landing in its own rows of dx, in the same order as
  // one thread would (each element's sequence of additions is unchanged).
  void col2im(T* dx, int64_t n0, int64_t nb) {
    const int64_t row_floats = m_w_in * m_c;
    parallel_for(m_ws->pool(), m_h, 2, [&](int64_t h_lo, int64_t h_hi) {
      for_each_patch_row(
          n0, 0, nb * m_ho * m_wo,
          [=](T* col, int64_t off, int64_t len) {
            const int64_t ih = off / row_floats % m_h;
            if (ih < h_lo || ih >= h_hi) return;
            T* d = dx + off;
            for (int64_t i = 0; i < len; ++i) d[i] += col[i];
          },
          [](T*, int64_t) {});
    });
  }

  int64_t m_c, m_h, m_w_in, m_f, m_ho, m_wo, m_k, m_s, m_pt = 0, m_pl = 0, m_kk = 0, m_chunk = 1;
  bool m_bias;
  GemmWorkspace* m_ws;
  AlignedVector<T> m_col;
  bool m_prepack = std::is_same_v<T, float> && sgemm_available();
  PackedA m_w_packed, m_wt_packed;  // op(W) for the forward and the input gradient
};

}  // namespace

template <class T>
void he_normal(T* w, int64_t n, int64_t fan_in, std::mt19937_64& rng) {
  // Box-Muller on the raw engine output: identical on every standard library (unlike
  // std::normal_distribution), so a seed means the same network everywhere.
  const double sd = std::sqrt(2.0 / static_cast<double>(std::max<int64_t>(fan_in, 1)));
  constexpr double two_pi = 6.283185307179586;
  for (int64_t i = 0; i < n; i += 2) {
    const double u1 = (static_cast<double>(rng() >> 11) + 1.0) * 0x1.0p-53;
    const double u2 = static_cast<double>(rng() >> 11) * 0x1.0p-53;
    const double r = std::sqrt(-2.0 * std::log(u1)) * sd;
    w[i] = static_cast<T>(r * std::cos(two_pi * u2));
    if (i + 1 < n) w[i + 1] = static_cast<T>(r * std::sin(two_pi * u2));
  }
}

template <class T>
void glorot_uniform(T* w, int64_t n, int64_t fan_in, int64_t fan_out, std::mt19937_64& rng) {
  const double a = std::sqrt(6.0 / static_cast<double>(std::max<int64_t>(fan_in + fan_out, 1)));
  for (int64_t i = 0; i < n; ++i)  // 53 random bits per draw, as in he_normal: portable
    w[i] = static_cast<T>((2.0 * static_cast<double>(rng() >> 11) * 0x1.0p-53 - 1.0) * a);
}

template <class T>
std::unique_ptr<Layer<T>> make_layer(const ResolvedLayer& l, int64_t max_batch,
                                     GemmWorkspace* ws) {
  switch (l.spec.kind) {
    case LayerKind::Dense: return std::make_unique<Dense<T>>(l, max_batch, ws);
    case LayerKind::Conv2d: return std::make_unique<Conv2d<T>>(l, max_batch, ws);
    case LayerKind::MaxPool: return make_max_pool<T>(l, max_batch, ws->pool());
    case LayerKind::Relu: return make_relu<T>(l, ws->pool());
    case LayerKind::Flatten: return make_flatten<T>(l);
    case LayerKind::BatchNorm: return make_batch_norm<T>(l);
    default:
      throw std::invalid_argument("layer \"" + l.spec.name + "\": the trainer has no " +
                                  layer_kind_name(l.spec.kind) + " layer");
  }
}

template std::unique_ptr<Layer<float>> make_layer<float>(const ResolvedLayer&, int64_t,
                                                         GemmWorkspace*);
template std::unique_ptr<Layer<double>> make_layer<double>(const ResolvedLayer&, int64_t,
                                                           GemmWorkspace*);
template void he_normal<float>(float*, int64_t, int64_t, std::mt19937_64&);
template void he_normal<double>(double*, int64_t, int64_t, std::mt19937_64&);
template void glorot_uniform<float>(float*, int64_t, int64_t, int64_t, std::mt19937_64&);
template void glorot_uniform<double>(double*, int64_t, int64_t, int64_t, std::mt19937_64&);

}  // namespace kp::trainer_detail
