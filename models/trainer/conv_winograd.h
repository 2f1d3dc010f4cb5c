#pragma once
// A stride-1 5 x 5 convolution by Winograd's F(4 x 4, 5 x 5) (winograd_transforms.h; Lavin &
// Gray 2016): the forward, the input gradient and the weight gradient each become 64 products
// of the transformed weights (filters x channels) with the transformed tiles of one sample,
// 6.25 times fewer multiplications than the direct product's. Why: conv2 of the Simple CNN is 60
// of its 82 MFLOP per sample, and one core ran the direct products at 70-77% of its FMA peak
// already. 4 x 4 tiles were +12.5% on one thread and +6.1% on two over 2 x 2 (36 products per 4
// outputs; dropped, see this file's history), at errors still ~1e-6 of the terms' magnitudes.
// The values differ from the direct product's by rounding (the transforms scale a tile up and
// back); the gradients are the exact gradients of this forward (the transposed maps).
// Layout: x and dx in HWC per sample, y and dy (f x pixels, column-major, leading dimension f),
// W and dW (f x 25c, column-major, depth ordered (kernel row, kernel column, channel)) as the
// im2col path (conv2d.cpp). Channels and filters are padded to 32 (the register tile's rows).
// Each sample's work runs on the calling thread with its own Scratch; the transformed weights
// are shared read-only. Internal to kp_trainer; AVX-512 builds only (sgemm_available()).
#include <cstdint>

#include "core/network_spec.h"
#include "models/trainer/aligned_vector.h"

namespace kp::trainer_detail {

class WinogradConv {
 public:
  static constexpr int kTile = 4;  // the output tile's side
  // Per-thread buffers of one sample: the padded input and input gradient, the transformed
  // tiles V (and their gradient) and the kXi products M (or their gradient dM). About 0.6 MB
  // for the Simple CNN's conv2 with 4 x 4 tiles, in L2.
  struct Scratch {
    AlignedVector<float> padded, padded_dx, v, dv, m;
  };

  // Whether layer l suits: a convolution at stride 1 with a 5 x 5 kernel and >= 8 channels, and
  // the AVX-512 sgemm. (conv1 of the Simple CNN, one channel, has nothing to multiply.)
  static bool suits(const ResolvedLayer& l);
  explicit WinogradConv(const ResolvedLayer& l);
  Scratch make_scratch() const;
  // Transforms the weights W (f x 25c, leading dimension f) for forward() and backward(): once
  // a step, before either, not concurrently with them.
  void set_weights(const float* w);
  // One sample: y = the convolution of x with the weights (no bias).
  void forward(const float* x, float* y, Scratch& s) const;
  // One sample's gradients from its output gradient dy: du = (du if acc) + this sample's weight
  // gradient in the transformed domain (du_floats()), and dx = its input gradient if dx is
  // non-null (overwritten). Each du element is one FMA chain over the sample's tiles, added to
  // du once, as a product with accumulation adds it in sgemm.
  void backward(const float* x, const float* dy, float* du, bool acc, float* dx,
                Scratch& s) const;
  int64_t du_floats() const { return kXi * m_us; }
  // dW (f x 25c, leading dimension f) = the weight gradient of du (G^T dU G).
  void weight_grad(const float* du, float* dw) const;

 private:
  static constexpr int64_t kAlpha = kTile + 4, kXi = kAlpha * kAlpha;  // tile side, products
  void input_transform(const float* x, Scratch& s) const;

  int64_t m_c, m_h, m_w, m_ho, m_wo, m_f, m_pt, m_pl;
  int64_t m_th, m_tw, m_tiles;  // output tiles down, across and in all
  int64_t m_ph, m_pw;           // padded input rows and columns (kTile per tile + 4)
  int64_t m_cp, m_fp;           // channels and filters padded to 32
  int64_t m_vs, m_ms;           // floats between points in V (and dV) and in M
  int64_t m_ufs, m_us;          // ... in m_uf, and in m_ub and du
  AlignedVector<float> m_uf;    // U for the forward: [xi][filter block][channel][32 filters]
  AlignedVector<float> m_ub;    // U for the input gradient: [xi][filter][channel]
};

}  // namespace kp::trainer_detail
