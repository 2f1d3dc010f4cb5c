#pragma once
// WinogradConv (conv_winograd.h) for one tile size: Scheme (winograd_transforms.h's Scheme) gives
// F(m x m, 5 x 5)'s matrices and its four hot maps. Built by WinogradConv::make(); defined for
// winograd::F4Scheme and winograd::F5Scheme in AVX-512 builds only.
#include <cstdint>

#include "models/trainer/conv_winograd.h"

namespace kp::trainer_detail {

template <class Scheme>
class WinogradTiles final : public WinogradConv {
 public:
  WinogradTiles(const ResolvedLayer& l, int64_t samples);
  Scratch make_scratch() const override;
  void set_weights(const float* w) override;
  void forward(const float* x, float* y, int64_t samples, const float* bias,
               Scratch& s) const override;
  void backward(const float* x, const float* dy, float* du, bool acc, float* dx, int64_t samples,
                Scratch& s) const override;
  int64_t samples() const override { return m_samples; }
  int64_t du_floats() const override { return kXi * m_us; }
  void weight_grad(const float* du, float* dw) const override;

 private:
  static constexpr int64_t kTile = Scheme::Matrices::kM;  // the output tile's side
  static constexpr int64_t kAlpha = kTile + 4, kXi = kAlpha * kAlpha;  // tile side, products
  void input_transform(const float* x, int64_t samples, Scratch& s) const;
  void transform_sample(const float* x, int64_t n, Scratch& s) const;  // the call's sample n
  void input_grad(float* dx, int64_t n, Scratch& s) const;
  void check_samples(int64_t samples) const;

  int64_t m_c, m_h, m_w, m_ho, m_wo, m_f, m_samples, m_pt, m_pl;  // m_samples: at most, a call
  int64_t m_th, m_tw, m_tiles;  // output tiles down, across and in all
  int64_t m_ph, m_pw;           // padded input rows and columns (kTile per tile + 4)
  int64_t m_cp, m_fp;           // channels and filters padded to 32
  int64_t m_vs, m_ms;           // floats between points in V (and dV) and in M
  int64_t m_ufs, m_us;          // ... in m_uf, and in m_ub and du
  AlignedVector<float> m_uf;    // U for the forward: [xi][filter block][channel][32 filters]
  AlignedVector<float> m_ub;    // U for the input gradient: [xi][filter][channel]
};

}  // namespace kp::trainer_detail
