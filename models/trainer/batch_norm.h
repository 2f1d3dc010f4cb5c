#pragma once
// Batch normalisation (Ioffe & Szegedy 2015, "Batch Normalization: Accelerating Deep Network
// Training by Reducing Internal Covariate Shift", ICML, Algorithm 1 and section 3.1), per channel
// in PyTorch's semantics (torch.nn.BatchNorm2d/1d): training normalises with the batch's mean and
// biased variance over batch x height x width and updates running statistics with momentum 0.1
// (the running variance from the unbiased estimate); evaluation normalises with the running
// statistics (mean 0, variance 1 at the start). eps = 1e-5. Parameters: gamma (C, initialised
// to 1) then beta (C, 0). Statistics are summed in double in a fixed order, so a seed's
// trajectory stays bit-identical. Training needs more than one value per channel
// (batch x height x width >= 2), as in PyTorch; fewer is std::invalid_argument.
// Internal to kp_trainer.
#include <memory>

#include "models/trainer/fused_layer.h"

namespace kp::trainer_detail {

template <class T>
std::unique_ptr<FusedLayer<T>> make_batch_norm(const ResolvedLayer& layer);

}  // namespace kp::trainer_detail
