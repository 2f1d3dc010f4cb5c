#pragma once
// The dense layer: y = W x (+ bias), W column-major (outputs x inputs). Its product at batch 1
// in column order (matvec_columns.h) or by column parts, at small batches by column parts
// (matvec_parts.h), above as one sgemm; a neighbouring ReLU in the product's epilogue; the
// weight gradient left to the optimizer (Layer::set_defer_weight_grad), which can also form the
// next batch-1 product (arm_next_product) or write the new weights in the forward's panels
// (arm_packed_weights). Internal to kp_trainer.
#include <memory>

#include "models/trainer/fused_layer.h"

namespace kp::trainer_detail {

template <class T>
std::unique_ptr<FusedLayer<T>> make_dense(const ResolvedLayer& layer, int64_t max_batch,
                                     GemmWorkspace* ws);

}  // namespace kp::trainer_detail
