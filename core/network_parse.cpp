#include "core/network_parse.h"

#include <set>

#include "core/limits.h"

namespace kp {
namespace {

using namespace limits;

// Layers including those inside residual blocks (each at most kLayers, so no overflow below).
int64_t layer_count(const std::vector<LayerSpec>& layers) {
  int64_t n = 0;
  for (const LayerSpec& l : layers) n += 1 + layer_count(l.body) + layer_count(l.shortcut);
  return n;
}

// One copy of a repeat: block. Names get the copy's suffix, and so do inputs that name a layer of
// the same block, so that `inputs:` inside a repeated block refer to the same copy.
void append_copy(const std::vector<LayerSpec>& body, int64_t copy, std::vector<LayerSpec>& out) {
  std::set<std::string> local;
  for (const LayerSpec& l : body) local.insert(l.name);
  const std::string suffix = "_" + std::to_string(copy + 1);
  for (LayerSpec l : body) {
    if (!l.name.empty()) l.name += suffix;
    for (std::string& in : l.inputs) {
      const size_t colon = in.rfind(':');  // a split's output "name:k" becomes "name_2:k"
      const std::string base = colon == std::string::npos ? in : in.substr(0, colon);
      if (local.count(base)) in.insert(base.size(), suffix);
    }
    if (!l.tied.empty() && local.count(l.tied)) l.tied += suffix;
    out.push_back(std::move(l));
  }
}

void parse_into(ConfigMap& item, std::vector<LayerSpec>& out) {
  if (item.has("repeat")) {
    const int64_t times = item.integer("repeat", 1, kRepeat);
    const std::vector<LayerSpec> body = parse_layers(item, "layers");
    item.check_unknown();
    // Nested repeats multiply: the total is bounded before anything is copied.
    if (layer_count(body) * times + layer_count(out) > kLayers) {
      item.error("repeat", "expands to more than " + format_limit(kLayers) + " layers");
      return;
    }
    for (int64_t t = 0; t < times; ++t) append_copy(body, t, out);
    return;
  }
  const std::string kind = item.text("kind");
  if (kind.empty()) return;  // missing kind already reported
  const auto* entry = layer_registry().find(kind);
  if (!entry) {
    item.error("kind", "unknown layer kind \"" + kind + "\" (known: " + layer_registry().known_list() + ")");
    return;
  }
  LayerSpec l = entry->parse(item);
  item.check_unknown();
  l.at = item.doc().at(item.node(), item.prefix(), "");
  if (l.name.empty()) l.name = kind + std::to_string(out.size() + 1);
  out.push_back(std::move(l));
}

}  // namespace

std::vector<LayerSpec> parse_layers(ConfigMap& parent, const std::string& key) {
  std::vector<LayerSpec> out;
  for (ConfigMap& item : parent.map_list(key)) parse_into(item, out);
  return out;
}

}  // namespace kp
