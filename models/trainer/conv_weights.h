#pragma once
// A convolution's weights W (f x kk, column-major, leading dimension f; kk = k*k*c) as the left
// operand of its im2col products: op(W) = W for the forward, W^T for the input gradient. For
// float with the AVX-512 sgemm each op is packed once a step (PackedA) and every chunk's product
// reads those panels: conv2 of the Simple CNN, by im2col before Winograd, ran one product per
// sample (its chunk), each of which re-packed all weights. Otherwise the product reads W in
// place (layer_gemm.h's gemm()). Internal to kp_trainer.
#include <cstdint>
#include <type_traits>

#include "models/trainer/gemm.h"
#include "models/trainer/layer_gemm.h"

namespace kp::trainer_detail {

template <class T>
class ConvWeights {
 public:
  ConvWeights(int64_t f, int64_t kk, GemmWorkspace* ws) : m_f(f), m_kk(kk), m_ws(ws) {}
  // Room for both ops' panels where packs(); call at construction, before pack().
  void reserve() {
    if (!m_packs) return;
    m_w.reserve(m_f, m_kk);
    m_wt.reserve(m_kk, m_f);
  }
  // Whether the products read packed panels: float with the AVX-512 sgemm.
  bool packs() const { return m_packs; }
  // Packs op(W) of the weights w, split across the workspace's pool; once a step, before the
  // products with that op (nothing to do where !packs()).
  void pack(Trans op, const T* w) {
    if constexpr (std::is_same_v<T, float>) {
      if (m_packs)
        panels(op).pack(op, rows(op), depth(op), w, m_f, m_ws->pool());
    }
  }
  // The panels of op(W) as pack() left them (for a caller that multiplies by itself).
  const PackedA& packed(Trans op) const { return op == Trans::No ? m_w : m_wt; }
  // C (ldc) = op(W) B, B (depth(op) x n, ldb), W the weights w of the last pack(op); on the
  // calling thread with that part's buffers if part >= 0 (sgemm()).
  void product(Trans op, const T* w, int64_t n, const T* b, int64_t ldb, T* c, int64_t ldc,
               int part) const {
    if constexpr (std::is_same_v<T, float>) {
      if (m_packs)
        return sgemm(packed(op), Trans::No, n, b, ldb, c, ldc, false, *m_ws, nullptr, part);
    }
    gemm(op, Trans::No, rows(op), n, depth(op), w, m_f, b, ldb, c, ldc, false, *m_ws);
  }

 private:
  int64_t rows(Trans op) const { return op == Trans::No ? m_f : m_kk; }
  int64_t depth(Trans op) const { return op == Trans::No ? m_kk : m_f; }
  PackedA& panels(Trans op) { return op == Trans::No ? m_w : m_wt; }

  int64_t m_f, m_kk;
  GemmWorkspace* m_ws;
  bool m_packs = std::is_same_v<T, float> && sgemm_available();
  PackedA m_w, m_wt;  // op(W) for the forward and for the input gradient
};

}  // namespace kp::trainer_detail
