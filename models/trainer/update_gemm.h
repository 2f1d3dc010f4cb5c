#pragma once
// A deferred dense weight gradient above batch 1 (network.h, WeightGradBlock): the GEMM dy x^T
// with the optimizer's update as its epilogue, so the gradient is never written to memory, or
// column by column for a large matrix at a batch whose dy fits in L1, or by the forward's
// column parts at small batches; the new weights also written to d.packed if set. Internal to
// kp_trainer; AVX-512 builds only (it throws std::logic_error elsewhere).
#include "models/trainer/optimizer.h"
#include "models/trainer/update_lanes.h"

namespace kp::trainer_detail {

class WorkerPool;

// Updates the block's weights w and velocities v (null for plain SGD) with coefficients k;
// returns the squared norm of its gradient. The values are those of the plain update of the
// gradient formed apart.
double update_gemm(const Coeffs& k, float* w, float* v, const DeferredGrad& d, WorkerPool* pool);

}  // namespace kp::trainer_detail
