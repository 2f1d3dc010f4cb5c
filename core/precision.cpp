#include "core/precision.h"

#include "core/config_map.h"
#include "core/hw_spec.h"

namespace kp {
namespace {

using D = DataType;

struct Preset {
  const char* name;
  PrecisionPolicy policy;
};

PrecisionPolicy policy(D matmul, D elementwise, D master, D gradients) {
  PrecisionPolicy p;
  p.matmul = matmul, p.elementwise = elementwise, p.master = master, p.gradients = gradients;
  return p;
}

// Sources in precision.h.
const Preset kPresets[] = {
    {"fp32", policy(D::Fp32, D::Fp32, D::Fp32, D::Fp32)},
    {"tf32", policy(D::Tf32, D::Fp32, D::Fp32, D::Fp32)},
    {"amp_fp16", policy(D::Fp16, D::Fp16, D::Fp32, D::Fp32)},
    {"amp_bf16", policy(D::Bf16, D::Bf16, D::Fp32, D::Fp32)},
    {"fp8", policy(D::Fp8, D::Bf16, D::Fp32, D::Fp32)},
};

DataType parse_type(ConfigMap& m, const char* key, bool storage) {
  const std::string name = m.text(key);
  DataType t = D::Fp32;
  if (!m.has(key)) return t;
  if (!parse_data_type(name, t)) {
    m.error(key, "expected one of " + data_type_names() + ", got \"" + name + "\"");
  } else if (storage && !is_storage_type(t)) {
    m.error(key, "tf32 is the input format of products only (its tensors are stored as fp32); write fp32");
  }
  return t;
}

}  // namespace

TensorBytes tensor_bytes(const PrecisionPolicy& p) {
  TensorBytes b;
  b.weights = storage_bytes(p.matmul);
  b.gradients = storage_bytes(p.gradients);
  b.master = storage_bytes(p.master);
  b.optimizer_state = storage_bytes(p.master);
  b.activations = storage_bytes(p.elementwise);
  b.separate_master = b.weights != b.master;
  return b;
}

bool precision_preset(const std::string& name, PrecisionPolicy& out) {
  for (const Preset& p : kPresets)
    if (name == p.name) {
      out = p.policy;
      out.preset = p.name;
      return true;
    }
  return false;
}

std::string preset_names() {
  std::string s;
  for (const Preset& p : kPresets) s += std::string(s.empty() ? "" : ", ") + p.name;
  return s;
}

namespace {

// One option: a preset name or a map of the four types; `key` is the option's dotted name.
PrecisionPolicy parse_option(ConfigMap& parent, const std::string& key, const YAML::Node& node) {
  PrecisionPolicy p;
  precision_preset("fp32", p);
  if (node.IsMap()) {
    ConfigMap m = parent.child(node, key);
    p.matmul = parse_type(m, "matmul", false);
    p.elementwise = parse_type(m, "elementwise", true);
    p.master = parse_type(m, "master", true);
    p.gradients = parse_type(m, "gradients", true);
    p.preset = std::string("{matmul: ") + data_type_name(p.matmul) + "}";
    m.check_unknown();
    return p;
  }
  const std::string name = node.IsScalar() ? node.Scalar() : "";
  if (!node.IsScalar() || !precision_preset(name, p))
    parent.error_at(node, key, "expected a preset (" + preset_names() +
                                   "), a map {matmul, elementwise, master, gradients} or a list of them, got \"" +
                                   name + "\"");
  return p;
}

}  // namespace

PrecisionSpec parse_precision(ConfigMap& root) {
  PrecisionSpec spec;
  spec.at = Diagnostic{root.doc().path(), 0, 0, root.dotted("precision"), ""};
  if (!root.has("precision")) {
    spec.options.emplace_back();
    precision_preset("fp32", spec.options.back());
    return spec;
  }
  root.mark_used("precision");
  const YAML::Node node = root.node()["precision"];
  spec.written = true;
  spec.at = root.doc().at(node, root.dotted("precision"), "");
  if (node.IsSequence()) {
    if (node.size() == 0 || node.size() > 8)
      root.error("precision", "expected a list of 1 to 8 policies, got " + std::to_string(node.size()));
    for (size_t i = 0; i < node.size() && i < 8; ++i)
      spec.options.push_back(parse_option(root, "precision[" + std::to_string(i) + "]", node[i]));
  } else {
    spec.options.push_back(parse_option(root, "precision", node));
  }
  if (spec.options.empty()) spec.options.emplace_back();
  return spec;
}

std::string precision_problem(const PrecisionSpec& p, const HardwareSpec& hw) {
  const TypePeaks& peaks = hw.array.peaks;
  std::string asked;
  for (const PrecisionPolicy& o : p.options) {
    if (peaks.supports(o.matmul)) return "";
    asked += std::string(asked.empty() ? "" : ", ") + data_type_name(o.matmul);
  }
  const std::string has = peaks.supported_names();
  return "the products' type (" + asked + ") is not supported by " + hw.source_file +
         (has.empty() ? " (it has no chip.compute.array.peak: give the array's rate per data type)"
                     : " (chip.compute.array.peak lists " + has + ")");
}

Precision resolve_precision(const PrecisionSpec& p, const HardwareSpec& hw) {
  for (const PrecisionPolicy& o : p.options) {
    if (!hw.array.peaks.supports(o.matmul)) continue;
    Precision r;
    r.policy = o;
    r.bytes = tensor_bytes(o);
    const SystolicArraySpec& a = hw.array;
    const double geometry = 2.0 * static_cast<double>(a.rows * a.cols * a.count) * hw.clock_hz;
    r.matmul_speed = a.peaks.peak(o.matmul) / geometry;
    return r;
  }
  Diagnostic d = p.at;
  d.message = precision_problem(p, hw);
  if (!p.written)
    d.message += "; the workload states no precision, so it is fp32: write precision: (" + preset_names() +
                 ", a map, or a list in order of preference) with a type the hardware has";
  throw ConfigError({d});
}

Precision mixed_precision(DataType compute) {
  Precision r;
  r.policy = policy(compute, compute, D::Fp32, compute);
  r.bytes = tensor_bytes(r.policy);
  return r;
}

}  // namespace kp
