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
// A call takes up to samples() consecutive samples, their tiles side by side in each product, on
// the calling thread with its own Scratch; the transformed weights are shared read-only.
// Internal to kp_trainer; AVX-512 builds only (sgemm_available()).
#include <cstdint>
#include <memory>

#include "core/network_spec.h"
#include "models/trainer/aligned_vector.h"

namespace kp::trainer_detail {

class WinogradConv {
 public:
  // Per-thread buffers of a call: the padded input and input gradient (of one sample at a time),
  // the transformed tiles V (and their gradient) and the products M (or their gradient dM).
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
  // The convolution of a suiting layer taking up to `samples` (>= 1) samples a call, with tiles
  // of side m: 4, 5, or 0 for tile_side()'s.
  static std::unique_ptr<WinogradConv> make(const ResolvedLayer& l, int64_t samples, int m = 0);
  virtual ~WinogradConv() = default;

  virtual int64_t samples() const = 0;  // at most, a call

  virtual Scratch make_scratch() const = 0;
  // Transforms the weights W (f x 25c, leading dimension f) for forward() and backward(): once
  // a step, before either, not concurrently with them.
  virtual void set_weights(const float* w) = 0;
  // 1 to samples() consecutive samples x (HWC each): y = their convolutions with the weights,
  // one after another, plus bias (f floats) if not null: each output rounded, then the bias
  // added, as a pass over y would add it.
  virtual void forward(const float* x, float* y, int64_t samples, const float* bias,
                       Scratch& s) const = 0;
  // Those samples' gradients from their output gradients dy: du = (du if acc) + their weight
  // gradient in the transformed domain (du_floats()), and dx = their input gradients if dx is
  // non-null (overwritten). Each du element is one FMA chain over the samples' tiles in order,
  // added to du once, as a product with accumulation adds it in sgemm.
  virtual void backward(const float* x, const float* dy, float* du, bool acc, float* dx,
                        int64_t samples, Scratch& s) const = 0;
  virtual int64_t du_floats() const = 0;
  // dW (f x 25c, leading dimension f) = the weight gradient of du (G^T dU G).
  virtual void weight_grad(const float* du, float* dw) const = 0;
};

}  // namespace kp::trainer_detail
