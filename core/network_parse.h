#pragma once
// Parses `network:` layer lists (with `repeat:` blocks and residual blocks) into LayerSpecs.
// Contract: errors are recorded on the ConfigMap's sink, one per bad key, with positions.
#include <vector>

#include "core/config_map.h"
#include "core/network_spec.h"
#include "core/registry.h"

namespace kp {

const Registry<LayerSpec>& layer_registry();
std::vector<LayerSpec> parse_layers(ConfigMap& parent, const std::string& key);

}  // namespace kp
