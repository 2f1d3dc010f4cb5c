#pragma once
// im2col and its adjoint for the convolution layer (conv2d.cpp): the patches of a chunk of
// samples as the columns of a matrix (one column of kernel x kernel x channels floats per
// output pixel, in (kh, kw, c) order, the padding as zeros), and such columns added back into
// the input gradient. Activations are HWC per sample, samples consecutive (layers.h).
// Internal to kp_trainer.
#include <cstdint>

#include "core/network_spec.h"

namespace kp::trainer_detail {

class WorkerPool;

template <class T>
class Im2col {
 public:
  // The geometry of a convolution layer: its input and output shapes, kernel, stride, padding.
  explicit Im2col(const ResolvedLayer& l);
  int64_t patch() const { return m_kk; }  // floats per column
  // The columns of the nb samples from sample n0 of x into cols (patch() x (pixels * nb)); the
  // pixels split across the pool's threads if a pool is given (each writes its own columns).
  void to_columns(const T* x, int64_t n0, int64_t nb, T* cols, WorkerPool* pool) const;
  // dx += each column entry at the input it was taken from (the adjoint of to_columns). Each
  // dx element receives its additions in the same order with or without a pool (whose threads
  // take rows of the input).
  void add_columns(T* dx, int64_t n0, int64_t nb, const T* cols, WorkerPool* pool) const;

 private:
  template <class F, class Z>
  void for_each_patch_row(int64_t n0, int64_t q_lo, int64_t q_hi, F&& f, Z&& z) const;
  template <class F>
  void for_each_pixel(int64_t n0, int64_t q_lo, int64_t q_hi, F&& f) const;
  void small_patches(const T* x, int64_t n0, int64_t q_lo, int64_t q_hi, T* cols) const;
  void row_patches(const T* x, int64_t n0, int64_t q_lo, int64_t q_hi, T* cols) const;

  int64_t m_c, m_h, m_w_in, m_ho, m_wo, m_k, m_s, m_pt, m_pl, m_kk;
};

extern template class Im2col<float>;
extern template class Im2col<double>;

}  // namespace kp::trainer_detail
