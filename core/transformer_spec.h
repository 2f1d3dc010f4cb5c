#pragma once
// The `transformer:` shorthand of a workload: a decoder (GPT) or encoder (BERT) stack written in
// ten lines and expanded to the layer graph that network: would spell out. Contract: errors are
// recorded on the map with positions; every generated layer carries the shorthand's position.
//
//   transformer: {layers: 12, d_model: 768, heads: 12, d_ff: 3072, activation: gelu, norm: pre,
//                 causal: true, vocab: 50257, sequence: 1024, tied_embeddings: true}
//
// Blocks follow Vaswani et al. 2017 (post-norm, BERT) or Radford et al. 2019 (pre-norm with a
// final norm, GPT-2): attention and feed-forward sub-layers, each added to its input.
#include "core/config_map.h"
#include "core/network_spec.h"

namespace kp {

NetworkSpec parse_transformer(ConfigMap& t);

}  // namespace kp
