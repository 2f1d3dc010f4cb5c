#include "core/network_parse.h"

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

LayerSpec base(LayerKind kind, ConfigMap& m) {
  LayerSpec l;
  l.kind = kind;
  l.name = m.text_or("name", "");
  return l;
}

LayerSpec windowed(LayerKind kind, ConfigMap& m, int64_t default_kernel) {
  LayerSpec l = base(kind, m);
  l.kernel = m.integer_or("kernel", 1, kWindow, default_kernel);
  l.stride = m.integer_or("stride", 1, kWindow, kind == LayerKind::Conv2d ? 1 : l.kernel);
  l.padding = m.choice_or("padding", {"same", "valid"}, 1) == 0 ? Padding::Same : Padding::Valid;
  return l;
}

Registry<LayerSpec> make_registry() {
  Registry<LayerSpec> r;
  r.add("dense", "fully connected: units", [](ConfigMap& m) {
    LayerSpec l = base(LayerKind::Dense, m);
    l.units = m.integer("units", 1, kUnits);
    l.bias = m.boolean_or("bias", true);
    return l;
  });
  r.add("conv2d", "2-D convolution: filters, kernel, stride, padding same|valid", [](ConfigMap& m) {
    LayerSpec l = windowed(LayerKind::Conv2d, m, 1);
    l.filters = m.integer("filters", 1, kChannels);
    l.bias = m.boolean_or("bias", true);
    return l;
  });
  r.add("maxpool", "max pooling: kernel, stride (default = kernel), padding",
        [](ConfigMap& m) { return windowed(LayerKind::MaxPool, m, 2); });
  r.add("avgpool", "average pooling: kernel, stride, padding",
        [](ConfigMap& m) { return windowed(LayerKind::AvgPool, m, 2); });
  r.add("global_avgpool", "average over the whole feature map",
        [](ConfigMap& m) { return base(LayerKind::GlobalAvgPool, m); });
  r.add("relu", "rectified linear activation", [](ConfigMap& m) { return base(LayerKind::Relu, m); });
  r.add("batchnorm", "batch normalisation (per channel scale and shift)",
        [](ConfigMap& m) { return base(LayerKind::BatchNorm, m); });
  r.add("flatten", "reshape to a feature vector", [](ConfigMap& m) { return base(LayerKind::Flatten, m); });
  r.add("softmax_cross_entropy", "softmax with cross-entropy loss (last layer)",
        [](ConfigMap& m) { return base(LayerKind::SoftmaxCrossEntropy, m); });
  r.add("residual", "body: [layers] added to shortcut: [layers] (empty = identity)",
        [](ConfigMap& m) {
          LayerSpec l = base(LayerKind::Residual, m);
          l.body = parse_layers(m, "body");
          if (m.has("shortcut")) l.shortcut = parse_layers(m, "shortcut");
          return l;
        });
  return r;
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
    for (int64_t t = 0; t < times; ++t) {
      for (LayerSpec l : body) {
        if (!l.name.empty()) l.name += "_" + std::to_string(t + 1);
        out.push_back(std::move(l));
      }
    }
    return;
  }
  const std::string kind = item.text("kind");
  if (kind.empty()) return;  // missing kind already reported
  const auto* entry = layer_registry().find(kind);
  if (!entry) {
    item.error("kind", "unknown layer kind \"" + kind + "\" (known: " +
                           layer_registry().known_list() + ")");
    return;
  }
  LayerSpec l = entry->parse(item);
  item.check_unknown();
  if (l.name.empty()) l.name = kind + std::to_string(out.size() + 1);
  out.push_back(std::move(l));
}

}  // namespace

const Registry<LayerSpec>& layer_registry() {
  static const Registry<LayerSpec> r = make_registry();
  return r;
}

std::vector<LayerSpec> parse_layers(ConfigMap& parent, const std::string& key) {
  std::vector<LayerSpec> out;
  for (ConfigMap& item : parent.map_list(key)) parse_into(item, out);
  return out;
}

}  // namespace kp
