// The dense layer (dense.h).
// GCC 12 flags its own AVX-512 intrinsics (_mm512_undefined_ps) inside Eigen's float packing.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "models/trainer/dense.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "models/trainer/aligned_vector.h"
#include "models/trainer/dense_columns.h"
#include "models/trainer/layer_gemm.h"
#include "models/trainer/matvec_columns.h"
#include "models/trainer/matvec_parts.h"
#include "models/trainer/panel_input_grad.h"
#include "models/trainer/relu_loops.h"

namespace kp::trainer_detail {

namespace {

// sgemm epilogues for a dense layer fused with a ReLU: each tile of the product goes through the
// ReLU (after the bias) into the ReLU's output, or is masked by the ReLU's output into the
// ReLU's input gradient, on the thread that computed it: no pass of its own over the batch and,
// on a multi-threaded trial, no serial section. Column by column: column(t, i0, at, rows) gets a
// tile column t of `rows` values from row i0, whose place in the (column-major, leading
// dimension ld) output is `at`.
template <class Column>
class ColumnSink final : public TileSink {
 public:
  ColumnSink(Column column, int64_t ld) : m_column(column), m_ld(ld) {}
  void tile(int64_t i0, int64_t j0, int64_t rows, int64_t cols, const float* t, int64_t ld,
            int) override {
    for (int64_t j = 0; j < cols; ++j) m_column(t + j * ld, i0, i0 + (j0 + j) * m_ld, rows);
  }

 private:
  Column m_column;
  int64_t m_ld;
};

// A dense layer of at least this many weights has the optimizer write its new weights in the
// forward's panels (arm_packed_weights). Packing such weights reads them from memory by lines
// 4 KiB apart, which the hardware prefetchers do not follow: the Simple CNN's fc1 (1024 x 3136,
// 12.8 MB) took 8.85 ms to pack and multiply at batch 128 and 7.46 ms from panels already
// packed (one thread, alone). Whole steps on one thread, in-process A/B against packing in the
// forward: M=32 +3.5% (faster in 15 of 20 rounds), 64 +1.2% (14/20), 128 +1.7% (24/30) and
// +2.2% (15/20), 256 +0.9% (6/10); one trial on two threads, M=128 +1.7% (8/16). Smaller
// weights come from L2 or L3 for packing, while the update writes the panels past the caches
// (update_lanes.h): with the threshold at 2^16, the MLP's (784 x 256 and 256 x 256) lost at
// b=128 1.1% (faster in 6 of 20 rounds), at b=64 3.3% (4/20), on two threads at b=128 6% (2/20).
constexpr int64_t kPackedCopyMinWeights = int64_t{1} << 20;

template <class T>
class Dense final : public FusedLayer<T> {
 public:
  Dense(const ResolvedLayer& l, int64_t max_batch, GemmWorkspace* ws)
      : m_in(l.in.elements()), m_out(l.out.elements()), m_bias(l.spec.bias), m_ws(ws) {
    this->m_params = m_in * m_out + (m_bias ? m_out : 0);
    m_part_sums.resize(static_cast<size_t>(kMatVecParts * m_out *
                                           std::min(max_batch, kColumnPartsMaxBatch)));
#ifdef __AVX512F__
    m_column_order = std::is_same_v<T, float> && m_out <= kColumnOrderMaxRows;
#endif
    if (m_column_order) m_next_sums.resize(static_cast<size_t>(kMatVecParts * m_out));
    if (std::is_same_v<T, float> && sgemm_available() && m_out * m_in >= kPackedCopyMinWeights) {
      m_packed.reserve(m_out, m_in);
      m_dyt.reserve(std::min(max_batch, kFusedMaxBatch), m_out);
    }
    m_ws->reserve(m_out, max_batch, m_in);  // forward
    m_ws->reserve(m_out, m_in, max_batch);  // weight gradient
    m_ws->reserve(m_in, max_batch, m_out);  // input gradient
  }
  void init(std::mt19937_64& rng, WeightInit kind) override {
    init_weights(kind, this->m_w, m_in * m_out, m_in, m_out, rng);
    if (m_bias) std::fill(this->m_w + m_in * m_out, this->m_w + this->m_params, T(0));
  }
  bool fuse_relu_output(T* relu_y) override {
    m_relu_y = relu_y;
    return true;
  }
  bool fuse_relu_input_grad(T* relu_dx) override {
    m_relu_dx = relu_dx;
    return true;
  }
  void forward(const T* x, T* y, int64_t batch) override {
    MapM<T> Y(y, m_out, batch);
    const T* bias = m_bias ? this->m_w + m_in * m_out : nullptr;
    // The ReLU (after the bias) of `rows` sums from row i0 into the ReLU's output at `at`.
    const auto relu_column = [bias, out = m_relu_y](const T* t, int64_t i0, int64_t at,
                                                    int64_t rows) {
      if (bias)
        bias_relu_forward(t, bias + i0, out + at, rows);
      else
        relu_forward(t, out + at, rows);
    };
    bool formed = batch == 1;
    if (batch == 1)  // matrix-vector: packing the weights for a GEMM would double the traffic
      forward_one(x, y);
    if constexpr (std::is_same_v<T, float>) {
      if (!formed && sgemm_available() && by_column_parts(batch, m_out * m_in)) {
        forward_parts(x, y, batch);  // the ReLU or bias below
        formed = true;
      } else if (!formed && sgemm_available()) {
        if (m_relu_y) {  // y: the product's partial sums
          ColumnSink<decltype(relu_column)> sink(relu_column, m_out);
          return product(x, y, batch, &sink);
        }
        product(x, y, batch, nullptr);
        formed = true;
      }
    }
    if (!formed)
      gemm(Trans::No, Trans::No, m_out, batch, m_in, this->m_w, m_out, x, m_in, y, m_out, false,
           *m_ws);
    if (m_relu_y) {
      for (int64_t n = 0; n < batch; ++n) relu_column(y + n * m_out, 0, n * m_out, m_out);
    } else if (bias) {
      Y.colwise() += MapV<T>(this->m_w + m_in * m_out, m_out);
    }
  }
  void backward(const T* x, const T*, const T* dy, T* dx, int64_t batch) override {
    CMapM<T> X(x, m_in, batch), dY(dy, m_out, batch);
    MapM<T> dW(this->m_dw, m_out, m_in);
    if (this->m_defer_weight_grad && defers_weight_grad<T>(batch)) {
      // formed by the optimizer
    } else if (batch == 1) {
      dW.noalias() = dY.col(0) * X.col(0).transpose();  // an outer product, not a k=1 GEMM
    } else
      gemm(Trans::No, Trans::Yes, m_out, m_in, batch, dy, m_out, x, m_in, this->m_dw, m_out,
           false, *m_ws);
    if (m_bias) row_sums(m_ws->pool(), dy, m_out, batch, this->m_dw + m_in * m_out, false);
    if (!dx) return;
    if constexpr (std::is_same_v<T, float>) {
      if (batch > 1 && sgemm_available() && by_column_parts(batch, m_out * m_in))
        return input_grad_parts(x, dy, dx, batch);
      if (m_packed_armed) {  // W from the forward's panels (panel_input_grad.h)
        m_dyt.pack(Trans::Yes, batch, m_out, dy, m_out, m_ws->pool());
        return input_grad_from_panels(m_packed, m_dyt, m_relu_dx ? x : nullptr,
                                      m_relu_dx ? m_relu_dx : dx, m_in, m_ws->pool());
      }
      if (m_relu_dx && batch > 1 && sgemm_available()) {  // x: the ReLU's output; dx: scratch
        const auto column = [y = x, out = m_relu_dx](const float* t, int64_t, int64_t at,
                                                     int64_t rows) {
          relu_backward(y + at, t, out + at, rows);
        };
        ColumnSink<decltype(column)> sink(column, m_in);
        return sgemm(Trans::Yes, Trans::No, m_in, batch, m_out, this->m_w, m_out, dy, m_out, dx,
                     m_in, false, *m_ws, &sink);
      }
    }
    if (batch == 1) return input_grad_one(x, dy, dx);
    gemm(Trans::Yes, Trans::No, m_in, batch, m_out, this->m_w, m_out, dy, m_out, dx, m_in, false,
         *m_ws);
    if (m_relu_dx) relu_backward(x, dx, m_relu_dx, m_in * batch);
  }
  T* arm_next_product(const T* next_x) override {
    if (!m_column_order) return nullptr;  // its forward is Eigen's
    m_next_x = next_x;
    return m_next_sums.data();
  }
  PackedA* arm_packed_weights(int64_t batch) override {
    // The forward's branches: batch 1 and small batches go by column parts (W in place).
    if (!m_packed.reserved_for(m_out, m_in) || by_column_parts(batch, m_out * m_in) ||
        !sgemm_packs_a(Trans::No, batch))
      return nullptr;
    m_packed.set_shape(m_out, m_in);
    m_packed_armed = true;
    return &m_packed;
  }
  void disarm_packed_weights() override { m_packed_armed = false; }
  bool weight_matrix(int64_t* rows, int64_t* cols) const override {
    *rows = m_out;
    *cols = m_in;
    return true;
  }

 private:
  // y = W x at batch 1 by column parts (matvec_parts.h): each part's product into its own sums,
  // then the parts added in order. For float with AVX-512 and <= 256 rows each sum is one FMA
  // chain over the columns in order (matvec_columns.h), the order in which the optimizer can
  // form the product while it updates the weights; elsewhere Eigen's.
  void forward_one(const T* x, T* y) {
    if (m_next_x && std::memcmp(x, m_next_x, sizeof(T) * size_t(m_in)) == 0) {
      m_next_x = nullptr;  // formed by the optimizer's last step (arm_next_product)
      return add_matvec_parts(m_next_sums.data(), matvec_parts(m_out * m_in), m_out, y);
    }
    CMapM<T> W(this->m_w, m_out, m_in);
    WorkerPool* const pool = batch_one_pool(m_ws->pool(), m_in * m_out);
    for_matvec_parts(pool, m_in, m_out * m_in, [&](int p, int64_t lo, int64_t hi, int) {
      T* const sums = m_part_sums.data() + p * m_out;
      if constexpr (std::is_same_v<T, float>)
        if (m_column_order) return matvec_columns(this->m_w, m_out, lo, hi, x, sums);
      if (lo == hi)
        MapV<T>(sums, m_out).setZero();
      else
        MapV<T>(sums, m_out).noalias() = W.middleCols(lo, hi - lo) * CMapV<T>(x + lo, hi - lo);
    });
    add_matvec_parts(m_part_sums.data(), matvec_parts(m_out * m_in), m_out, y);
  }
  // y = W x (float, with AVX-512), through the sink if any; the weights from the panels the
  // optimizer wrote if armed (arm_packed_weights), the same values as packing them here.
  void product(const float* x, float* y, int64_t batch, TileSink* sink) {
    if (m_packed_armed)
      return sgemm(m_packed, Trans::No, batch, x, m_in, y, m_out, false, *m_ws, sink);
    sgemm(Trans::No, Trans::No, m_out, batch, m_in, this->m_w, m_out, x, m_in, y, m_out, false,
          *m_ws, sink);
  }
  // y = W x at small batches (matvec_parts.h) by column parts, like batch 1: each part's product
  // (sgemm, the weights read in place) into its own sums, then the parts added in order.
  void forward_parts(const float* x, float* y, int64_t batch) {
    float* const sums = m_part_sums.data();
    const int64_t size = m_out * batch;
    for_matvec_parts(m_ws->pool(), m_in, m_out * m_in, [&](int p, int64_t lo, int64_t hi, int t) {
      sgemm(Trans::No, Trans::No, m_out, batch, hi - lo, this->m_w + lo * m_out, m_out, x + lo,
            m_in, sums + p * size, m_out, false, *m_ws, nullptr, t);
    });
    add_matvec_parts(sums, matvec_parts(m_out * m_in), size, y);
  }
  // dx = W^T dy at small batches, each part's columns of W giving its rows of dx (masked by the
  // fused ReLU in the product's epilogue): the same values as the whole product. A large layer
  // at batches 2-6 goes by dot products of W's columns instead (dense_columns.h), whose sums
  // differ from the product's in the last bits.
  void input_grad_parts(const float* x, const float* dy, float* dx, int64_t batch) {
    const bool by_columns = input_grad_by_columns(m_out, m_in, batch);
    for_matvec_parts(m_ws->pool(), m_in, m_out * m_in, [&](int, int64_t lo, int64_t hi, int t) {
      if (by_columns) {
        input_grad_columns(this->m_w, m_out, lo, hi, dy, batch, dx, m_in);
        if (m_relu_dx)
          for (int64_t s = 0; s < batch; ++s)
            relu_backward(x + s * m_in + lo, dx + s * m_in + lo, m_relu_dx + s * m_in + lo,
                          hi - lo);
        return;
      }
      const float* w = this->m_w + lo * m_out;
      if (!m_relu_dx)
        return sgemm(Trans::Yes, Trans::No, hi - lo, batch, m_out, w, m_out, dy, m_out, dx + lo,
                     m_in, false, *m_ws, nullptr, t);
      const auto column = [y = x + lo, out = m_relu_dx + lo](const float* c, int64_t, int64_t at,
                                                             int64_t rows) {
        relu_backward(y + at, c, out + at, rows);
      };
      ColumnSink<decltype(column)> sink(column, m_in);
      sgemm(Trans::Yes, Trans::No, hi - lo, batch, m_out, w, m_out, dy, m_out, dx + lo, m_in,
            false, *m_ws, &sink, t);
    });
  }
  // dx = W^T dy at batch 1, each part's columns of W giving its elements of dx (then the fused
  // ReLU's mask, x its output).
  void input_grad_one(const T* x, const T* dy, T* dx) {
    CMapM<T> W(this->m_w, m_out, m_in);
    WorkerPool* const pool = batch_one_pool(m_ws->pool(), m_in * m_out);
    for_matvec_parts(pool, m_in, m_out * m_in, [&](int, int64_t lo, int64_t hi, int) {
      if (lo == hi) return;
      MapV<T>(dx + lo, hi - lo).noalias() =
          W.middleCols(lo, hi - lo).transpose() * CMapV<T>(dy, m_out);
      if (m_relu_dx) relu_backward(x + lo, dx + lo, m_relu_dx + lo, hi - lo);
    });
  }

  int64_t m_in, m_out;
  bool m_bias;
  GemmWorkspace* m_ws;
  AlignedVector<T> m_part_sums;  // batch 1: each column part's W x
  // Batch 1's product in column order (float with AVX-512, <= kColumnOrderMaxRows rows), the
  // only one the optimizer can form (arm_next_product); Eigen's otherwise.
  bool m_column_order = false;
  AlignedVector<T> m_next_sums;  // the same, formed by the optimizer for the input m_next_x
  const T* m_next_x = nullptr;   // armed (arm_next_product) until a forward takes the sums
  // The weights in the panels of the forward's product, written by the optimizer's update
  // (arm_packed_weights): reserved for layers of >= kPackedCopyMinWeights weights only.
  PackedA m_packed;
  PackedA m_dyt;  // with m_packed: dy^T for the input gradient from the panels
  bool m_packed_armed = false;
  T* m_relu_y = nullptr;   // the next layer's (a ReLU's) output, if fused
  T* m_relu_dx = nullptr;  // the previous layer's (a ReLU's) input gradient, if fused
};

}  // namespace

template <class T>
std::unique_ptr<FusedLayer<T>> make_dense(const ResolvedLayer& l, int64_t max_batch,
                                     GemmWorkspace* ws) {
  return std::make_unique<Dense<T>>(l, max_batch, ws);
}

template std::unique_ptr<FusedLayer<float>> make_dense<float>(const ResolvedLayer&, int64_t,
                                                         GemmWorkspace*);
template std::unique_ptr<FusedLayer<double>> make_dense<double>(const ResolvedLayer&, int64_t,
                                                           GemmWorkspace*);

}  // namespace kp::trainer_detail
