#pragma once
// The forward product of a stride-1 convolution as an implicit GEMM (conv2d.cpp): Y (filters x
// pixels of one sample) = W (filters x k*k*c, packed once a step) times the sample's patches,
// read straight from a zero-padded copy of the sample instead of im2col's columns. Why: conv2 of
// the Simple CNN wrote 627 KB of columns a sample for the product to read back from L2 (its
// im2col, forward and backward, took ~4.5% of a step); its padded sample is 41 KB and stays in
// L1. (Its weight gradient read the same way measured no gain there; conv1's, from one channel,
// gains: conv2d.cpp, weight_grad_chunk.) That conv2, 5 x 5, now runs by Winograd
// (conv_winograd.h); this product serves the other stride-1 convolutions with >= 8 channels
// (3 x 3, 1 x 1, ...) or one (conv1). An output row of pixels is cut into register
// tiles of up to 14 columns (32 x 14: 28 accumulators): in HWC, column j's patch starts c
// floats after column j-1's, and each kernel row of a patch is k*c contiguous floats, so the
// depth loop runs over those k runs (Chellapilla et al. 2006 for the GEMM form of a
// convolution; the implicit form as in cuDNN's IMPLICIT_GEMM, Chetlur et al. 2014).
// Each Y element is the same chain of FMAs over the same depth blocks as sgemm() over
// im2col's columns, so the values are the same bit for bit.
// Internal to kp_trainer; AVX-512 builds only (sgemm_available()).
#include <cstdint>

#include "core/network_spec.h"
#include "models/trainer/gemm.h"

namespace kp::trainer_detail {

class ImplicitConv {
 public:
  // Whether layer l suits the implicit product: a float convolution with the AVX-512 sgemm, at
  // stride 1, with at least 8 channels (runs of >= 8k floats) or one. The Simple CNN's conv1
  // (one channel, runs of 5 floats) this way rather than by its one-channel im2col: steps +0.9%
  // and +2.6% on one thread (faster in 22 of 30 and 27 of 40 in-process rounds, Zen 4), and its
  // weight gradient (weight_grad). 2-7 channels, not measured, keep im2col.
  static bool suits(const ResolvedLayer& l);
  explicit ImplicitConv(const ResolvedLayer& l);
  // Floats of a padded sample, with room past its end for the columns a last tile reads but
  // never stores. The caller zeroes the buffer once: pad() writes only the interior.
  int64_t padded_floats() const;
  // Copies one sample x (HWC) into the interior of `padded`.
  void pad(const float* x, float* padded) const;
  // y (f x ho*wo, column-major, leading dimension f) = W times the patches of `padded`, W packed
  // by PackedA::pack(Trans::No, f, k*k*c, ...), plus bias (f floats) if not null: each element
  // its product rounded, then the bias added, as a pass over y would add it. On the calling
  // thread.
  void forward(const PackedA& w, const float* padded, float* y, const float* bias) const;
  // The weight gradient of nb samples, padded one after another (padded_floats() apart): g (f x
  // k*k*c, leading dimension f) = (g if accumulate) + dy times the samples' patches transposed,
  // dy (f x nb*ho*wo, leading dimension f). The values of sgemm(Trans::No, Trans::Yes, ...) over
  // im2col's columns, bit for bit: one FMA chain per element over each of sgemm's depth blocks
  // of pixels, added to g in order. On the calling thread.
  void weight_grad(const float* padded, int64_t nb, const float* dy, float* g,
                   bool accumulate) const;

 private:
  template <int64_t kNr>
  void tile(const PackedA& w, const float* padded, int64_t i0, int64_t oh, int64_t ow0,
            int64_t cols, float* y, const float* bias) const;
  template <int64_t kNr>
  void grad_tile(const float* padded, const float* dy, int64_t p0, int64_t kc, int64_t i0,
                 int64_t j0, float* g, bool acc) const;

  int64_t m_c, m_k, m_h, m_w, m_ho, m_wo, m_pt, m_pl, m_ph, m_pw, m_f;
};

}  // namespace kp::trainer_detail
