#pragma once
// A stride-1 5 x 5 convolution by Winograd's minimal filtering F(m x m, 5 x 5) (Lavin & Gray
// 2016): the forward, the input gradient and the weight gradient each become (m + 4)^2 products
// of the transformed weights (filters x channels) with the transformed tiles of one sample,
// 25 m^2 / (m + 4)^2 times fewer multiplications than the direct product's. Why: conv2 of the
// Simple CNN is 60 of its 82 MFLOP per sample, and one core ran the direct products at 70-77% of
// its FMA peak already. Two tile sides, m = 4 (winograd_transforms.h) and m = 5
// (winograd_f5.h); a layer takes the one with fewer products for its output size (tile_side()).
// The values differ from the direct product's by rounding (the transforms scale a tile up and
// back: ~4e-7 of the terms' magnitudes on average for m = 4, ~1.3e-6 for m = 5); the gradients
// are the exact gradients of this forward (the transposed maps).
// Layout: x and dx in HWC per sample, y and dy (f x pixels, column-major, leading dimension f),
// W and dW (f x 25c, column-major, depth ordered (kernel row, kernel column, channel)) as the
// im2col path (conv2d.cpp). Channels and filters are padded to 32 (the register tile's rows).
// Each sample's work runs on the calling thread with its own Scratch; the transformed weights
// are shared read-only. Internal to kp_trainer; AVX-512 builds only (sgemm_available()).
#include <cstdint>
#include <memory>

#include "core/network_spec.h"
#include "models/trainer/aligned_vector.h"

namespace kp::trainer_detail {

class WinogradConv {
 public:
  // Per-thread buffers of one sample: the padded input and input gradient, the transformed
  // tiles V (and their gradient) and the products M (or their gradient dM). About 0.6 MB for the
  // Simple CNN's conv2, in L2.
  struct Scratch {
    AlignedVector<float> padded, padded_dx, v, dv, m;
  };

  // Whether layer l suits: a convolution at stride 1 with a 5 x 5 kernel and >= 8 channels, and
  // the AVX-512 sgemm. (conv1 of the Simple CNN, one channel, has nothing to multiply.)
  static bool suits(const ResolvedLayer& l);
  // The tile side, 4 or 5, whose tiles take fewer products for ho x wo outputs,
  // ceil(ho / m) ceil(wo / m) (m + 4)^2; 4 on a tie, as its transforms err less. 14 x 14: 5
  // (729 against 1024); 28 x 28: 5 (2916 against 3136); 8 x 8: 4 (256 against 324).
  static int tile_side(int64_t ho, int64_t wo);
  // The convolution of a suiting layer with tiles of side m (4 or 5; tile_side() by default).
  static std::unique_ptr<WinogradConv> make(const ResolvedLayer& l, int m);
  static std::unique_ptr<WinogradConv> make(const ResolvedLayer& l) {
    return make(l, tile_side(l.out.h, l.out.w));
  }
  virtual ~WinogradConv() = default;

  virtual Scratch make_scratch() const = 0;
  // Transforms the weights W (f x 25c, leading dimension f) for forward() and backward(): once
  // a step, before either, not concurrently with them.
  virtual void set_weights(const float* w) = 0;
  // One sample: y = the convolution of x with the weights (no bias).
  virtual void forward(const float* x, float* y, Scratch& s) const = 0;
  // One sample's gradients from its output gradient dy: du = (du if acc) + this sample's weight
  // gradient in the transformed domain (du_floats()), and dx = its input gradient if dx is
  // non-null (overwritten). Each du element is one FMA chain over the sample's tiles, added to
  // du once, as a product with accumulation adds it in sgemm.
  virtual void backward(const float* x, const float* dy, float* du, bool acc, float* dx,
                        Scratch& s) const = 0;
  virtual int64_t du_floats() const = 0;
  // dW (f x 25c, leading dimension f) = the weight gradient of du (G^T dU G).
  virtual void weight_grad(const float* du, float* dw) const = 0;
};

}  // namespace kp::trainer_detail
