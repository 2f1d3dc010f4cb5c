#pragma once
// The layers without parameters: max-pool, ReLU, flatten. With a worker pool (a trial on several
// threads) max-pool and ReLU split their samples or elements across its threads; every output is
// computed as on one thread, so the values do not depend on the thread count.
// Internal to kp_trainer.
#include <memory>

#include "models/trainer/fused_layer.h"

namespace kp::trainer_detail {

class WorkerPool;

template <class T>
std::unique_ptr<FusedLayer<T>> make_max_pool(const ResolvedLayer& layer, int64_t max_batch,
                                        WorkerPool* pool);
template <class T>
std::unique_ptr<FusedLayer<T>> make_relu(const ResolvedLayer& layer, WorkerPool* pool);
// Computes nothing: the network hands it the same buffer as input and output.
template <class T>
std::unique_ptr<FusedLayer<T>> make_flatten();

}  // namespace kp::trainer_detail
