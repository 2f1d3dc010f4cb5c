// GCC 12 flags its own AVX-512 intrinsics (_mm512_undefined_ps) inside Eigen's float packing.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "models/trainer/conv2d.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "core/int_math.h"
#include "models/trainer/aligned_vector.h"
#include "models/trainer/conv_gemm.h"
#include "models/trainer/conv_weights.h"
#include "models/trainer/conv_winograd.h"
#include "models/trainer/fused_stage.h"
#include "models/trainer/im2col.h"
#include "models/trainer/layer_gemm.h"
#include "models/trainer/ordered_chunk_sum.h"
#include "models/trainer/worker_pool.h"

namespace kp::trainer_detail {

namespace {

// Samples per Winograd call (conv_winograd.h): their tiles share each product, so that the
// transformed weights, their transpose and the transformed weight gradient (2 MB for the Simple
// CNN's conv2 with 5 x 5 tiles, beyond L2) stream from L3 once per two samples, and the weight
// gradient's products run 18 depth steps instead of 9.
constexpr int64_t kWinogradSamples = 2;

// im2col + GEMM, in chunks of samples so the column buffer stays cache-sized for any batch: at
// most 2^18 floats (1 MiB, or one sample if larger), half of the Xeon's 2 MiB L2, which leaves
// room for the GEMM's packed panels. With 4 MiB chunks the buffer went to L3 and back: Simple
// CNN b=128 775 -> 839 samples/s (bench_trainer, ten alternating runs each). The chunk sets
// the weight gradient's summation order (its depth), so changing it changes the trajectories.
template <class T>
class Conv2d final : public FusedLayer<T> {
 public:
  Conv2d(const ResolvedLayer& l, int64_t max_batch, GemmWorkspace* ws)
      : m_c(l.in.c), m_h(l.in.h), m_w_in(l.in.w), m_f(l.out.c), m_ho(l.out.h), m_wo(l.out.w),
        m_k(l.spec.kernel), m_kk(m_k * m_k * m_c), m_bias(l.spec.bias), m_ws(ws),
        m_weights(m_f, m_kk, ws), m_im2col(l) {
    this->m_params = m_f * m_kk + (m_bias ? m_f : 0);
    const int64_t per_sample = m_kk * m_ho * m_wo;
    m_chunk = std::clamp<int64_t>((int64_t{1} << 18) / std::max<int64_t>(per_sample, 1), 1,
                                  std::max<int64_t>(max_batch, 1));
    WorkerPool* pool = m_ws->pool();
    m_threads = pool ? pool->threads() : 1;
    m_by_samples = m_weights.packs() && m_threads > 1;
    m_cols.resize(static_cast<size_t>(m_by_samples ? m_threads : 1));
    if (m_weights.packs() && WinogradConv::suits(l)) {
      init_winograd(l, max_batch);
      return;
    }
    for (AlignedVector<T>& c : m_cols) c.resize(static_cast<size_t>(per_sample * m_chunk));
    if (m_by_samples && m_ho * m_wo * m_chunk <= kSgemmSingleBlockDepth)
      m_sum.reserve(this->m_params, m_threads, ceil_div(max_batch, m_chunk));
    const int64_t cols = m_ho * m_wo * m_chunk;
    m_ws->reserve(m_f, cols, m_kk);  // forward
    m_ws->reserve(m_f, m_kk, cols);  // weight gradient
    m_ws->reserve(m_kk, cols, m_f);  // input gradient (columns)
    m_weights.reserve();
    if (m_weights.packs() && ImplicitConv::suits(l)) {
      m_implicit.emplace(l);
      m_padded.resize(m_cols.size());  // a sample, or a chunk's for the weight gradient
      for (AlignedVector<float>& p : m_padded)
        p.assign(static_cast<size_t>(m_implicit->padded_floats() *
                                     (implicit_weight_grad() ? m_chunk : 1)),
                 0.0f);
    }
  }
  void init(std::mt19937_64& rng, WeightInit kind) override {
    init_weights(kind, this->m_w, m_f * m_kk, m_kk, m_k * m_k * m_f, rng);
    if (m_bias) std::fill(this->m_w + m_f * m_kk, this->m_w + this->m_params, T(0));
  }
  // Each chunk's output through the stage as it is computed (fused_stage.h).
  bool fuse_next(SampleStage<T>* stage, T* y, const T* dy) override {
    m_next.attach(stage, y, dy, m_cols.size(), m_f * m_ho * m_wo * m_chunk);
    return true;
  }
  void forward(const T* x, T* y, int64_t batch) override {
    if constexpr (std::is_same_v<T, float>) {
      if (m_wino) m_wino->set_weights(this->m_w);
    }
    if (!m_wino) m_weights.pack(Trans::No, this->m_w);
    const int64_t chunks = ceil_div(batch, m_chunk);
    if (!by_samples(chunks)) {
      for (int64_t c = 0; c < chunks; ++c) forward_chunk(x, y, c, batch, -1);
      return;
    }
    // Each chunk to the next free thread: a chunk's output is its own, computed alike on any
    // thread. Dealt out in halves, the calling thread's half took 10-20% longer than the
    // helper's (Simple CNN b=128: 16.3 vs 14.9 and 11.3 vs 9.4 ms a step); taken in turn, one
    // trial on 2 threads +3.6% (faster in 40 of 60 in-process rounds).
    for_each_chunk(m_ws->pool(), chunks,
                   [&](int64_t c, int part) { forward_chunk(x, y, c, batch, part); });
  }
  void backward(const T* x, const T*, const T* dy, T* dx, int64_t batch) override {
    if (m_bias) MapV<T>(this->m_dw + m_f * m_kk, m_f).setZero();
    if (m_wino) return backward_winograd(x, dy, dx, batch);
    if (dx) m_weights.pack(Trans::Yes, this->m_w);
    const int64_t chunks = ceil_div(batch, m_chunk);
    if (by_samples(chunks) && m_sum.reserved())
      return backward_by_samples(x, dy, dx, chunks, batch);
    if (dx) std::fill(dx, dx + batch * m_c * m_h * m_w_in, T(0));
    for (int64_t c = 0; c < chunks; ++c) {
      const int64_t n0 = c * m_chunk, nb = std::min(m_chunk, batch - n0), q = m_ho * m_wo * nb;
      T* col = m_cols[0].data();
      const T* dyc = output_grad(dy, n0, nb, -1);
      weight_grad_chunk(x, n0, nb, dyc, this->m_dw, n0 > 0, -1);
      if (m_bias) row_sums(m_ws->pool(), dyc, m_f, q, this->m_dw + m_f * m_kk, true);
      if (dx) {
        m_weights.product(Trans::Yes, this->m_w, q, dyc, m_f, col, m_kk, -1);
        m_im2col.add_columns(dx, n0, nb, col, m_ws->pool());
      }
    }
  }

 private:
  // Winograd in place of im2col and the product: kWinogradSamples samples a chunk, so that the
  // weight gradient is added chunk by chunk in order on any number of threads.
  // Simple CNN, conv2: see conv_winograd.h.
  void init_winograd(const ResolvedLayer& l, int64_t max_batch) {
    if constexpr (std::is_same_v<T, float>) {
      m_chunk = std::min<int64_t>(kWinogradSamples, std::max<int64_t>(max_batch, 1));
      m_wino = WinogradConv::make(l, m_chunk);
      for (size_t i = 0; i < m_cols.size(); ++i) m_scratch.push_back(m_wino->make_scratch());
      const int64_t nu = m_wino->du_floats() + (m_bias ? m_f : 0);
      m_du.assign(static_cast<size_t>(nu), 0.0f);
      if (m_by_samples)
        m_sum.reserve(nu, m_threads, ceil_div(std::max<int64_t>(max_batch, 1), m_chunk));
    }
  }
  // The backward by Winograd: each chunk's weight gradient (transformed) and bias gradient
  // added in chunk order, on one thread or by chunks on several (as backward_by_samples()),
  // then transformed back once.
  void backward_winograd(const T* x, const T* dy, T* dx, int64_t batch) {
    if constexpr (std::is_same_v<T, float>) {
      const int64_t nu = m_wino->du_floats(), chunks = ceil_div(batch, m_chunk);
      if (by_samples(chunks) && m_sum.reserved()) {
        std::fill(m_du.begin() + nu, m_du.end(), 0.0f);
        m_sum.run(m_ws->pool(), chunks, nu, m_du.data(), [&](int64_t c, int part, float* g) {
          winograd_chunk(x, dy, dx, c, batch, part, g, false);
        });
        if (m_bias) std::copy(m_du.begin() + nu, m_du.end(), this->m_dw + m_f * m_kk);
      } else {
        for (int64_t c = 0; c < chunks; ++c)
          winograd_chunk(x, dy, dx, c, batch, -1, m_du.data(), c > 0);
      }
      m_wino->weight_grad(m_du.data(), this->m_dw);
    }
  }
  // Chunk c's gradients: its transformed weight gradient into du (added if acc), its bias
  // gradient (a part's own after du, else added into dW's), and its dx.
  void winograd_chunk(const float* x, const float* dy, float* dx, int64_t c, int64_t batch,
                      int part, float* du, bool acc) {
    const int64_t n0 = c * m_chunk, nb = std::min(m_chunk, batch - n0);
    const int64_t in = m_c * m_h * m_w_in, q = m_ho * m_wo * nb;
    const float* dyc = output_grad(dy, n0, nb, part);
    m_wino->backward(x + n0 * in, dyc, du, acc, dx ? dx + n0 * in : nullptr, nb,
                     m_scratch[static_cast<size_t>(std::max(part, 0))]);
    if (!m_bias) return;
    if (part >= 0)
      MapV<float>(du + m_wino->du_floats(), m_f) = CMapM<float>(dyc, m_f, q).rowwise().sum();
    else
      row_sums(m_ws->pool(), dyc, m_f, q, this->m_dw + m_f * m_kk, true);
  }
  // With several threads, whole chunks of samples go to threads (one fork-join per layer instead
  // of several per chunk, and each chunk's columns stay in one core's cache) when there are
  // enough chunks to balance: the Simple CNN's conv2 runs 64 at b=128. Else each chunk's
  // products and loops are split across the threads.
  bool by_samples(int64_t chunks) const { return m_by_samples && chunks >= 4 * m_threads; }
  // Chunk c of the batch (samples [c * m_chunk, ...)): on the calling thread with that part's
  // buffers if part >= 0, else split across the pool.
  void forward_chunk(const T* x, T* y, int64_t c, int64_t batch, int part) {
    const int64_t n0 = c * m_chunk, nb = std::min(m_chunk, batch - n0), q = m_ho * m_wo * nb;
    const auto buf = static_cast<size_t>(std::max(part, 0));
    MapM<T> Y(m_next.attached() ? m_next.buffer(part) : y + n0 * m_f * m_ho * m_wo, m_f, q);
    const int64_t in = m_c * m_h * m_w_in, out = m_f * m_ho * m_wo;
    // The bias goes with the Winograd and implicit products' stores, else in a pass over Y: the
    // same values either way. Without that pass, Simple CNN M=128 on one thread +0.5% (faster
    // in 21 of 30 in-process rounds), M=32 even (11/20).
    const T* const bias = m_bias ? this->m_w + m_f * m_kk : nullptr;
    if (m_wino) {
      if constexpr (std::is_same_v<T, float>)
        m_wino->forward(x + n0 * in, Y.data(), nb, bias, m_scratch[buf]);
    } else if (implicit(part)) {  // no columns: the product reads each padded sample
      if constexpr (std::is_same_v<T, float>) {
        for (int64_t s = 0; s < nb; ++s) {
          m_implicit->pad(x + (n0 + s) * in, m_padded[buf].data());
          m_implicit->forward(m_weights.packed(Trans::No), m_padded[buf].data(),
                              Y.data() + s * out, bias);
        }
      }
    } else {
      T* col = m_cols[buf].data();
      m_im2col.to_columns(x, n0, nb, col, part >= 0 ? nullptr : m_ws->pool());
      m_weights.product(Trans::No, this->m_w, q, col, m_kk, Y.data(), m_f, part);
      if (bias) Y.colwise() += CMapV<T>(bias, m_f);
    }
    if (m_next.attached()) m_next.forward(n0, nb, out, part, m_ws->pool());
  }
  // Whether the forward's product of a chunk on `part` (sgemm()) is the implicit one, which runs
  // on the calling thread: for a chunk on a thread of its own, or a trial on one thread. Conv2
  // of the Simple CNN: one thread +2.9% (faster in 47 of 60 in-process rounds), one trial on 2
  // threads +4.3% (43/60).
  bool implicit(int part) const { return m_implicit && (part >= 0 || !m_ws->pool()); }
  // Whether the weight gradient reads the padded samples too (weight_grad_chunk): one channel.
  bool implicit_weight_grad() const { return m_implicit && m_c == 1; }
  // The output gradient of samples [n0, n0 + nb): from dy, or formed by the fused stage into the
  // part's chunk buffer.
  const T* output_grad(const T* dy, int64_t n0, int64_t nb, int part) {
    const int64_t out = m_f * m_ho * m_wo;
    if (!m_next.attached()) return dy + n0 * out;
    return m_next.output_grad(n0, nb, out, part, m_ws->pool());
  }
  // The backward by chunks, each taken by the next free thread, which computes the chunk's
  // weight and bias gradient apart and its own samples' dx; the gradients are added into dW in
  // chunk order (ordered_chunk_sum.h), as the chunk loop above accumulates them: a chunk's
  // product is one FMA chain per element (depth <= kSgemmSingleBlockDepth), added to dW once,
  // and the first chunk's weight gradient is stored, as a product without accumulation stores
  // it (the bias gradient starts from zero). Simple CNN, one trial on 2 threads: +7.5% (faster
  // in 40 of 60 in-process rounds) against rounds of one chunk per thread with a fork-join each,
  // where every round waited for its slower thread.
  void backward_by_samples(const T* x, const T* dy, T* dx, int64_t chunks, int64_t batch) {
    m_sum.run(m_ws->pool(), chunks, m_f * m_kk, this->m_dw, [&](int64_t c, int part, T* g) {
      backward_chunk(x, dy, dx, c, batch, part, g);
    });
  }
  void backward_chunk(const T* x, const T* dy, T* dx, int64_t c, int64_t batch, int part, T* g) {
    if constexpr (std::is_same_v<T, float>) {
      const int64_t n0 = c * m_chunk, nb = std::min(m_chunk, batch - n0), q = m_ho * m_wo * nb;
      float* col = m_cols[static_cast<size_t>(part)].data();
      const float* dyc = output_grad(dy, n0, nb, part);
      weight_grad_chunk(x, n0, nb, dyc, g, false, part);
      if (m_bias) MapV<T>(g + m_f * m_kk, m_f) = CMapM<T>(dyc, m_f, q).rowwise().sum();
      if (!dx) return;
      const int64_t per_sample = m_c * m_h * m_w_in;
      std::fill(dx + n0 * per_sample, dx + (n0 + nb) * per_sample, 0.0f);
      m_weights.product(Trans::Yes, this->m_w, q, dyc, m_f, col, m_kk, part);
      m_im2col.add_columns(dx, n0, nb, col, nullptr);
    }
  }
  // g (m_f x m_kk) = (g if acc) + the weight gradient of samples [n0, n0 + nb) with output
  // gradient dyc: from the padded samples (conv_gemm.h) where implicit_weight_grad(), else by
  // im2col's columns and the product; on the calling thread with that part's buffers if part
  // >= 0, else split across the pool. The same values either way. The Simple CNN's conv1
  // (im2col: 25 floats a pixel of its one channel, 10 MB a step at b=128), one thread, A/B
  // against im2col: M=128 +0.9% and +2.5% (faster in 15 of 20 and 22 of 30 rounds), M=32 +3.0%
  // (17/20); one trial on two threads -1.8% (9 of 16 faster: that mode's noise). With more
  // channels the columns cost less against the product: conv2 by im2col gained nothing.
  void weight_grad_chunk(const T* x, int64_t n0, int64_t nb, const T* dyc, T* g, bool acc,
                         int part) {
    const int64_t q = m_ho * m_wo * nb, in = m_c * m_h * m_w_in;
    if constexpr (std::is_same_v<T, float>) {
      if (implicit(part) && implicit_weight_grad()) {
        float* const padded = m_padded[static_cast<size_t>(std::max(part, 0))].data();
        for (int64_t s = 0; s < nb; ++s)
          m_implicit->pad(x + (n0 + s) * in, padded + s * m_implicit->padded_floats());
        return m_implicit->weight_grad(padded, nb, dyc, g, acc);
      }
    }
    T* col = m_cols[static_cast<size_t>(std::max(part, 0))].data();
    m_im2col.to_columns(x, n0, nb, col, part >= 0 ? nullptr : m_ws->pool());
    if (part >= 0) {
      if constexpr (std::is_same_v<T, float>)
        return sgemm(Trans::No, Trans::Yes, m_f, m_kk, q, dyc, m_f, col, m_kk, g, m_f, acc,
                     *m_ws, nullptr, part);
    }
    gemm(Trans::No, Trans::Yes, m_f, m_kk, q, dyc, m_f, col, m_kk, g, m_f, acc, *m_ws);
  }
  int64_t m_c, m_h, m_w_in, m_f, m_ho, m_wo, m_k, m_kk, m_chunk = 1;
  bool m_bias;
  GemmWorkspace* m_ws;
  ConvWeights<T> m_weights;  // W as the im2col products' operand, packed once a step
  Im2col<T> m_im2col;
  int m_threads = 1;
  bool m_by_samples = false;  // float, the AVX-512 sgemm and a trial on several threads
  std::vector<AlignedVector<T>> m_cols;  // a column buffer per thread (one unless m_by_samples)
  OrderedChunkSum<T> m_sum;  // by samples: the chunks' weight and bias gradients
  FusedStage<T> m_next;  // the fused next layer (fuse_next), if attached
  std::optional<ImplicitConv> m_implicit;  // the forward without im2col (conv_gemm.h), if it suits
  std::vector<AlignedVector<float>> m_padded;  // per column buffer: a padded sample, zero border
  std::unique_ptr<WinogradConv> m_wino;  // in place of im2col (conv_winograd.h), if it suits
  std::vector<WinogradConv::Scratch> m_scratch;  // with m_wino: per column buffer
  AlignedVector<float> m_du;  // with m_wino: the transformed weight gradient, then the bias's
};

}  // namespace

template <class T>
std::unique_ptr<FusedLayer<T>> make_conv2d(const ResolvedLayer& l, int64_t max_batch,
                                      GemmWorkspace* ws) {
  return std::make_unique<Conv2d<T>>(l, max_batch, ws);
}

template std::unique_ptr<FusedLayer<float>> make_conv2d<float>(const ResolvedLayer&, int64_t,
                                                          GemmWorkspace*);
template std::unique_ptr<FusedLayer<double>> make_conv2d<double>(const ResolvedLayer&, int64_t,
                                                            GemmWorkspace*);

}  // namespace kp::trainer_detail
