#include "models/trainer/simple_layers.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <type_traits>
#include <vector>

#include "models/trainer/max_pool_window.h"
#include "models/trainer/relu_loops.h"
#include "models/trainer/worker_pool.h"

namespace kp::trainer_detail {

namespace {

// Below this many elements (samples for max-pool) a layer runs on the calling thread: a
// fork-join costs ~0.5 us, an element ~0.1-1 ns.
constexpr int64_t kParallelMinElements = 1 << 16, kParallelMinSamples = 2;

template <class T>
class MaxPool final : public FusedLayer<T>, public SampleStage<T> {
 public:
  MaxPool(const ResolvedLayer& l, int64_t max_batch, WorkerPool* pool)
      : m_c(l.in.c), m_h(l.in.h), m_w_in(l.in.w), m_ho(l.out.h), m_wo(l.out.w),
        m_k(l.spec.kernel), m_s(l.spec.stride), m_pool(pool) {
    m_pt = pad_before(m_h, m_ho, m_k, m_s, l.spec.padding);
    m_pl = pad_before(m_w_in, m_wo, m_k, m_s, l.spec.padding);
    m_arg.resize(static_cast<size_t>(l.out.elements() * max_batch));
  }
  SampleStage<T>* sample_stage() override { return this; }
  // The ReLU after the pool (the trainer moves it there, network.cpp): each window's maximum
  // goes through it as it is written, and the backward masks the ReLU's gradient as it routes
  // it. The Simple CNN's two ReLUs made passes of their own over 3.2 and 1.6 MB at b=128.
  bool fuse_relu_output(T* relu_y) override {
    m_relu_y = relu_y;
    return true;
  }
  bool fuse_relu_output_grad(const T* relu_dy) override {
    if (!m_relu_y) return false;
    m_relu_dy = relu_dy;
    return true;
  }
  void skip_fused(bool forward, bool backward) override {
    m_skip_forward = forward;
    m_skip_backward = backward;
  }
  void forward(const T* x, T* y, int64_t batch) override {
    if (m_skip_forward) return;
    parallel_for(m_pool, batch, kParallelMinSamples, [&](int64_t n0, int64_t n1) {
      forward_samples(x + n0 * in_n(), y, n0, n1 - n0);
    });
  }
  void backward(const T*, const T*, const T* dy, T* dx, int64_t batch) override {
    if (!dx || m_skip_backward) return;
    parallel_for(m_pool, batch, kParallelMinSamples, [&](int64_t n0, int64_t n1) {
      backward_samples(dy, dx + n0 * in_n(), n0, n1 - n0);
    });
  }
  void forward_samples(const T* x, T* y, int64_t n0, int64_t nb) override {
    if (m_relu_y) y = m_relu_y;
    for (int64_t n = n0; n < n0 + nb; ++n)
      forward_sample(x + (n - n0) * in_n(), y + n * out_n(), m_arg.data() + n * out_n());
  }
  void backward_samples(const T* dy, T* dx, int64_t n0, int64_t nb) override {
    const T* relu_y = m_relu_dy ? m_relu_y : nullptr;
    if (m_relu_dy) dy = m_relu_dy;
    for (int64_t n = n0; n < n0 + nb; ++n) {
      const T* dyn = dy + n * out_n();
      const T* yn = relu_y ? relu_y + n * out_n() : nullptr;
      T* dxn = dx + (n - n0) * in_n();
      const int32_t* arg = m_arg.data() + n * out_n();
      if (m_s == m_k && m_pt == 0 && m_pl == 0) {  // windows do not overlap: one write per input
        tiled_backward(dyn, yn, dxn, arg);
        continue;
      }
      std::fill(dxn, dxn + in_n(), T(0));
      for (int64_t i = 0; i < out_n(); ++i) dxn[arg[i]] += yn ? relu_grad(yn[i], dyn[i]) : dyn[i];
    }
  }

 private:
  int64_t in_n() const { return m_c * m_h * m_w_in; }
  int64_t out_n() const { return m_c * m_ho * m_wo; }
  // Each input is in at most one window: it receives the window's gradient if it was the
  // window's maximum, else zero. Written once, instead of zero-filling dx and scattering into it
  // (the fill alone wrote the 12.8 MB under conv1 of the Simple CNN at b=128 a second time).
  // 0 + dy as the scatter added, so a -0 gradient arrives as +0 there too.
  // With a fused ReLU, y is its output (the gradient is masked by y > 0).
  void tiled_backward(const T* __restrict dy, const T* __restrict y, T* __restrict dx,
                      const int32_t* __restrict arg) const {
    for (int64_t ih = 0; ih < m_h; ++ih)
      for (int64_t iw = 0; iw < m_w_in; ++iw) {
        const int64_t oh = ih / m_k, ow = iw / m_k, at = (ih * m_w_in + iw) * m_c;
        T* d = dx + at;
        if (oh >= m_ho || ow >= m_wo) {  // past the last whole window
          std::fill(d, d + m_c, T(0));
          continue;
        }
        const int64_t win = (oh * m_wo + ow) * m_c;
        for (int64_t c = 0; c < m_c; ++c) {
          const T g = T(0) + (y ? relu_grad(y[win + c], dy[win + c]) : dy[win + c]);
          d[c] = arg[win + c] == static_cast<int32_t>(at + c) ? g : T(0);
        }
      }
  }
  // One sample: xn its input, y and arg its outputs (y through the fused ReLU, if any).
  void forward_sample(const T* xn, T* y, int32_t* arg) const {
    if constexpr (std::is_same_v<T, float>) {
      if (m_vector_windows)
        return max_pool_sample_f32({m_c, m_h, m_w_in, m_ho, m_wo, m_k, m_s, m_pt, m_pl}, xn,
                                   m_relu_y != nullptr, y, arg);
    }
    for (int64_t oh = 0; oh < m_ho; ++oh)
      for (int64_t ow = 0; ow < m_wo; ++ow, y += m_c, arg += m_c) {
        std::fill(y, y + m_c, -std::numeric_limits<T>::infinity());
        bool first = true;  // where no input beats -inf, the first input is the argmax
        for (int64_t kh = 0; kh < m_k; ++kh) {
          const int64_t ih = oh * m_s - m_pt + kh;
          if (ih < 0 || ih >= m_h) continue;
          for (int64_t kw = 0; kw < m_k; ++kw) {
            const int64_t iw = ow * m_s - m_pl + kw;
            if (iw < 0 || iw >= m_w_in) continue;
            const int64_t off = (ih * m_w_in + iw) * m_c;
            if (first)
              for (int64_t c = 0; c < m_c; ++c) arg[c] = static_cast<int32_t>(off + c);
            first = false;
            for (int64_t c = 0; c < m_c; ++c)
              if (xn[off + c] > y[c]) {
                y[c] = xn[off + c];
                arg[c] = static_cast<int32_t>(off + c);
              }
          }
        }
        if (m_relu_y)  // in place
          for (int64_t c = 0; c < m_c; ++c) y[c] = relu_value(y[c]);
      }
  }

  int64_t m_c, m_h, m_w_in, m_ho, m_wo, m_k, m_s, m_pt = 0, m_pl = 0;
  WorkerPool* m_pool;
  std::vector<int32_t> m_arg;
  bool m_skip_forward = false, m_skip_backward = false;
  const bool m_vector_windows = sgemm_available() && m_k * m_k <= kPoolWindowMax;
  T* m_relu_y = nullptr;  // the fused ReLU's output and output gradient, if fused
  const T* m_relu_dy = nullptr;
};

template <class T>
class Relu final : public FusedLayer<T> {
 public:
  Relu(const ResolvedLayer& l, WorkerPool* pool) : m_n(l.in.elements()), m_pool(pool) {}
  void skip_fused(bool forward, bool backward) override {
    m_skip_forward = forward;
    m_skip_backward = backward;
  }
  void forward(const T* x, T* y, int64_t batch) override {
    if (m_skip_forward) return;
    parallel_for(m_pool, m_n * batch, kParallelMinElements, [x, y](int64_t lo, int64_t hi) {
      relu_forward(x + lo, y + lo, hi - lo);
    });
  }
  void backward(const T*, const T* y, const T* dy, T* dx, int64_t batch) override {
    if (!dx || m_skip_backward) return;
    parallel_for(m_pool, m_n * batch, kParallelMinElements, [y, dy, dx](int64_t lo, int64_t hi) {
      relu_backward(y + lo, dy + lo, dx + lo, hi - lo);
    });
  }

 private:
  int64_t m_n;
  WorkerPool* m_pool;
  bool m_skip_forward = false, m_skip_backward = false;
};

// Flatten keeps the (HWC) memory order, so the network gives it the same buffer as output and
// input (network.cpp) and there is nothing to compute; other buffers would be an internal bug.
template <class T>
class Flatten final : public FusedLayer<T> {
 public:
  void forward(const T* x, T* y, int64_t) override { in_place(x, y); }
  void backward(const T*, const T*, const T* dy, T* dx, int64_t) override {
    if (dx) in_place(dy, dx);
  }

 private:
  static void in_place(const T* in, const T* out) {
    if (in != out) {
      std::fprintf(stderr, "flatten: output buffer is not its input (internal bug)\n");
      std::abort();
    }
  }
};

}  // namespace

template <class T>
std::unique_ptr<FusedLayer<T>> make_max_pool(const ResolvedLayer& l, int64_t max_batch,
                                        WorkerPool* pool) {
  return std::make_unique<MaxPool<T>>(l, max_batch, pool);
}
template <class T>
std::unique_ptr<FusedLayer<T>> make_relu(const ResolvedLayer& l, WorkerPool* pool) {
  return std::make_unique<Relu<T>>(l, pool);
}
template <class T>
std::unique_ptr<FusedLayer<T>> make_flatten() {
  return std::make_unique<Flatten<T>>();
}

template std::unique_ptr<FusedLayer<float>> make_max_pool<float>(const ResolvedLayer&, int64_t,
                                                            WorkerPool*);
template std::unique_ptr<FusedLayer<double>> make_max_pool<double>(const ResolvedLayer&, int64_t,
                                                              WorkerPool*);
template std::unique_ptr<FusedLayer<float>> make_relu<float>(const ResolvedLayer&, WorkerPool*);
template std::unique_ptr<FusedLayer<double>> make_relu<double>(const ResolvedLayer&, WorkerPool*);
template std::unique_ptr<FusedLayer<float>> make_flatten<float>();
template std::unique_ptr<FusedLayer<double>> make_flatten<double>();

}  // namespace kp::trainer_detail
