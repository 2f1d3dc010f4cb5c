#pragma once
// Layer keys whose YAML form is richer than one scalar: a list of tensor names, an integer or an
// [h, w] pair, a target shape. Contract: like ConfigMap's getters, errors are recorded on the map
// (with positions) and a harmless placeholder is returned.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/config_map.h"
#include "core/network_spec.h"

namespace kp {

// A list of names ([a, b]); absent = empty.
std::vector<std::string> text_list(ConfigMap& m, const std::string& key);
// An integer (both sides) or, where `pair` is allowed, [h, w]; each in [min_value, max_value].
std::pair<int64_t, int64_t> int_pair_or(ConfigMap& m, const std::string& key, int64_t min_value, int64_t max_value,
                                        int64_t fallback, bool pair);
// `to: {channels, height, width}` or `to: {sequence, features}` into l.to_*.
void target_shape(ConfigMap& m, LayerSpec& l);

}  // namespace kp
