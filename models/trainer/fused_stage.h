#pragma once
// The link from a layer that computes its samples chunk by chunk (Conv2d) to the SampleStage
// fused after it (fused_layer.h: FusedLayer::fuse_next, the max-pool). Each chunk's output goes to a
// chunk-sized buffer of the thread computing it and through the stage right away, and the
// stage forms the chunk's output gradient in that buffer the same way. Why: under conv1 of the
// Simple CNN the max-pool read back the 12.8 MB output of a b=128 batch from memory, and its
// input gradient went there and back again; fused, Simple CNN +4.7% on one thread, +3.6% on
// two (faster in 45 and 40 of 60 in-process rounds). Internal to kp_trainer.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "models/trainer/aligned_vector.h"
#include "models/trainer/fused_layer.h"
#include "models/trainer/worker_pool.h"

namespace kp::trainer_detail {

template <class T>
class FusedStage {
 public:
  // The stage, its output y and output gradient dy (the whole batch's, as in Layer), and one
  // chunk buffer of `floats` for each of `buffers` threads. Call at construction.
  void attach(SampleStage<T>* stage, T* y, const T* dy, size_t buffers, int64_t floats) {
    m_stage = stage;
    m_y = y;
    m_dy = dy;
    m_out.resize(buffers);
    for (AlignedVector<T>& o : m_out) o.assign(static_cast<size_t>(floats), T(0));
  }
  bool attached() const { return m_stage != nullptr; }
  // The chunk buffer of `part` (a thread's, or for part < 0 the calling thread's).
  T* buffer(int part) { return m_out[static_cast<size_t>(std::max(part, 0))].data(); }
  // Hands samples [n0, n0 + nb) of the batch, computed into buffer(part) (`sample_floats`
  // each), to the stage's forward: on the calling thread for part >= 0, else split across the
  // pool as the stage's own layer would split them.
  void forward(int64_t n0, int64_t nb, int64_t sample_floats, int part, WorkerPool* pool) {
    const T* out = buffer(part);
    on_samples(nb, part, pool, [&](int64_t lo, int64_t hi) {
      m_stage->forward_samples(out + lo * sample_floats, m_y, n0 + lo, hi - lo);
    });
  }
  // The output gradient of samples [n0, n0 + nb), formed by the stage's backward into
  // buffer(part), which it returns; threads as forward().
  const T* output_grad(int64_t n0, int64_t nb, int64_t sample_floats, int part,
                       WorkerPool* pool) {
    T* out = buffer(part);
    on_samples(nb, part, pool, [&](int64_t lo, int64_t hi) {
      m_stage->backward_samples(m_dy, out + lo * sample_floats, n0 + lo, hi - lo);
    });
    return out;
  }

 private:
  template <class F>
  static void on_samples(int64_t nb, int part, WorkerPool* pool, F&& f) {
    if (part >= 0) return f(0, nb);
    parallel_for(pool, nb, 2, f);
  }

  SampleStage<T>* m_stage = nullptr;
  T* m_y = nullptr;
  const T* m_dy = nullptr;
  std::vector<AlignedVector<T>> m_out;
};

}  // namespace kp::trainer_detail
