#include "core/network_parse_keys.h"

#include "core/limits.h"

namespace kp {

using namespace limits;

std::vector<std::string> text_list(ConfigMap& m, const std::string& key) {
  std::vector<std::string> out;
  m.describe(key, "list of tensor names", false);  // known even where absent: a typo's message lists it
  if (!m.has(key)) return out;
  const YAML::Node n = m.node()[key];
  if (!n.IsSequence() || n.size() == 0) {
    m.error_at(n, key, "expected a list of tensor names, e.g. [attn, input]");
    return out;
  }
  for (const YAML::Node& item : n) {
    if (!item.IsScalar() || item.Scalar().empty()) {
      m.error_at(item, key, "expected a tensor name (a layer's name, or input)");
      continue;
    }
    out.push_back(item.Scalar());
  }
  return out;
}

std::pair<int64_t, int64_t> int_pair_or(ConfigMap& m, const std::string& key, int64_t min_value, int64_t max_value,
                                        int64_t fallback, bool pair) {
  if (key_log()) m.describe(key, pair ? "integer or [height, width]" : "integer", false);
  if (!m.has(key) || !m.node()[key].IsSequence()) {
    const int64_t v = m.integer_or(key, min_value, max_value, fallback);
    return {v, v};
  }
  m.mark_used(key);
  const YAML::Node n = m.node()[key];
  if (!pair || n.size() != 2) {
    m.error_at(n, key, pair ? "expected an integer or [height, width]" : "expected an integer");
    return {fallback, fallback};
  }
  int64_t v[2] = {fallback, fallback};
  for (size_t i = 0; i < 2; ++i) {
    int64_t x = 0;
    if (!n[i].IsScalar() || !YAML::convert<int64_t>::decode(n[i], x) || x < min_value || x > max_value) {
      m.error_at(n[i], key,
                 "expected an integer in [" + std::to_string(min_value) + ", " + format_limit(max_value) + "]");
      continue;
    }
    v[i] = x;
  }
  return {v[0], v[1]};
}

void target_shape(ConfigMap& m, LayerSpec& l) {
  ConfigMap to = m.map("to");
  if (to.has("sequence")) {
    l.to_sequence = true;
    l.to_h = to.integer("sequence", 1, kSequence);
    l.to_c = to.integer("features", 1, kChannels);
    l.to_w = 1;
  } else {
    l.to_c = to.integer("channels", 1, kChannels);
    l.to_h = to.integer_or("height", 1, kImageSide, 1);
    l.to_w = to.integer_or("width", 1, kImageSide, 1);
  }
  to.check_unknown();
}

}  // namespace kp
