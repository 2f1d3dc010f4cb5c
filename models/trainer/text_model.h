#pragma once
// The layers of a TransformerSpec, in order, each with its output features per token column
// (text_layers.h). Throws std::invalid_argument for a spec that cannot be built (a size < 1,
// heads not dividing d_model, dropout outside [0, 1)). Internal to kp_trainer.
#include <cstdint>
#include <vector>

#include "models/trainer/text_layers.h"
#include "models/trainer/transformer_spec.h"

namespace kp::trainer_detail {

template <class T>
std::vector<SizedLayer<T>> make_transformer_layers(const TransformerSpec& spec,
                                                   int64_t max_tokens, uint64_t seed);

}  // namespace kp::trainer_detail
