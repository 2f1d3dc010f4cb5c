#pragma once
// First-order optimizers on a flat parameter array, in the PyTorch (torch.optim.SGD) formulation,
// weight decay coupled as an L2 term g += wd * w (skipped when wd = 0, as there):
//   sgd:      w -= lr * g
//   momentum: v = mu * v + g;  w -= lr * v                    (heavy ball, Polyak 1964)
//   nesterov: v = mu * v + g;  w -= lr * (g + mu * v)         (Sutskever et al. 2013, ICML, eq. 3-4,
//             rewritten in terms of the current parameters as PyTorch and Keras do)
// Learning rate at step t (0-based): linear warm-up lr * (t+1)/warmup_steps for t < warmup_steps,
// then constant, or linear decay to lr * final_lr_factor at decay_steps and held there.
//   adam, adamw: reference_update.h (the plain loop only)
// Contract: step() allocates nothing; the velocity (and Adam's moments) start at zero.
// Deferred weight gradients: a dense layer's weight gradient is dy x^T. At batch 1 (an outer
// product) step() forms it element by element inside the update; above batch 1 it runs the
// GEMM with the update as its epilogue (gemm.h's TileSink). Either way the gradient is never
// written to memory and read back: that saves two passes over the weights, and the update is
// bound by memory traffic. Each parameter sees the same float operations as in the plain path.
// A batch-1 block with next_x set (Network::fuse_next_product) also gets the next step's product
// W_new next_x written, in the forward's order, from the new weights on their way to memory.
#include <cstdint>
#include <vector>

#include "models/trainer/aligned_vector.h"
#include "core/workload_spec.h"
#include "models/trainer/network.h"

namespace kp {

double learning_rate_at(const OptimizerSpec& spec, int64_t step);

using DeferredGrad = WeightGradBlock<float>;

class Optimizer {
 public:
  // With a pool (a multi-threaded trial's, network.h), the deferred updates of batches 1..24
  // split across its threads by the layers' column parts (matvec_parts.h); the values do not
  // depend on the thread count. grad_sq_norm: whether step() sums the gradient's squared norm;
  // the fused weight-gradient tiles spend one FMA in four of their update on it.
  // reference: every update by the plain loop (reference_update.h), as the reference path's
  // network needs (it defers no gradient); the Adam family always updates so.
  Optimizer(const OptimizerSpec& spec, int64_t num_params,
            trainer_detail::WorkerPool* pool = nullptr, bool grad_sq_norm = true,
            bool reference = false);
  // Applies one update with the gradient g (of the loss, without weight decay) at step `step`;
  // g is not read inside the `n_deferred` blocks (sorted by offset, disjoint), whose gradient is
  // formed from dy and x. Returns the squared L2 norm of the gradient (without weight decay),
  // or NaN if built without grad_sq_norm.
  double step(float* w, const float* g, int64_t step, const DeferredGrad* deferred = nullptr,
              size_t n_deferred = 0);

 private:
  OptimizerSpec m_spec;
  int64_t m_n;
  AlignedVector<float> m_velocity;  // or Adam's first moment
  AlignedVector<float> m_second;    // Adam's second moment
  trainer_detail::WorkerPool* m_pool;
  bool m_norm, m_reference;
};

}  // namespace kp
