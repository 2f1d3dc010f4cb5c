#include "core/workload_spec.h"

#include <stdexcept>

#include "core/config_map.h"
#include "core/kinds.h"
#include "core/limits.h"
#include "core/network_parse.h"
#include "core/transformer_spec.h"

namespace kp {
namespace {

using namespace limits;

// input: an image {channels, height, width}, token ids {sequence, vocab} or a feature sequence
// {sequence, features} (e.g. audio frames x filterbank features).
void parse_input(ConfigMap& in, NetworkSpec& net) {
  Shape& s = net.input;
  if (in.has("fields")) {
    // fields: {user: 6040, item: 3706}: one id per sample from each vocabulary.
    in.describe("fields", "map of field name to vocabulary size", false);
    const YAML::Node f = in.node()["fields"];
    if (!f.IsMap() || f.size() == 0) in.error("fields", "expected a map of field names to vocabulary sizes");
    ConfigMap fm = in.map("fields");
    if (f.IsMap())
      for (const auto& kv : f) {
        const std::string name = kv.first.Scalar();
        net.field_names.push_back(name);
        net.fields.push_back(Shape{1, 1, 1, true, fm.integer(name, 2, kVocab)});
      }
    if (!net.fields.empty()) s = net.fields.front();
    in.check_unknown();
    return;
  }
  if (in.has("sequence")) {
    s.sequence = true;
    s.h = in.integer("sequence", 1, kSequence);
    s.w = 1;
    if (in.has("vocab") == in.has("features"))
      in.error("sequence", "a sequence input gives vocab (token ids) or features (feature vectors), one of them");
    if (in.has("vocab")) s.c = 1, s.vocab = in.integer("vocab", 2, kVocab);
    else s.c = in.integer_or("features", 1, kChannels, 1);
  } else {
    s.c = in.integer("channels", 1, kChannels);
    s.h = in.integer_or("height", 1, kImageSide, 1);
    s.w = in.integer_or("width", 1, kImageSide, 1);
    if (s.c * s.h * s.w > kTensorElements)  // each <= 2^20
      in.error("channels", "channels x height x width is " + std::to_string(s.c * s.h * s.w) +
                               " elements, expected at most " + format_limit(kTensorElements));
  }
  in.check_unknown();
}

void parse_network(ConfigMap& root, WorkloadSpec& w) {
  if (root.has("transformer")) {
    if (root.has("network")) root.error("network", "give either transformer: or network:, not both");
    if (root.has("input")) root.error("input", "transformer: sets the input (vocab and sequence)");
    ConfigMap t = root.map("transformer");
    w.network = parse_transformer(t);
    t.check_unknown();
    return;
  }
  ConfigMap in = root.map("input");
  parse_input(in, w.network);
  w.network.layers = parse_layers(root, "network");
  // An image classifier states its classes (checked against the last layer); sequence models and
  // detectors end in per-position or per-cell outputs and may leave it out.
  const bool classifier = !w.network.input.sequence && !w.network.layers.empty() &&
                          w.network.layers.back().kind == LayerKind::SoftmaxCrossEntropy;
  if (classifier || root.has("classes")) w.network.classes = root.integer("classes", 2, kChannels);
}

void parse_optimizer(ConfigMap o, OptimizerSpec& opt) {
  opt.kind = static_cast<OptimizerKind>(
      o.choice("kind", {"sgd", "momentum", "nesterov", "adam", "adamw", "lamb"}));
  opt.learning_rate = o.number("learning_rate", 1e-8, 1e3);
  const bool adam = is_adam_family(opt.kind);
  if (adam) {
    // The Adam family has betas, not a momentum: a momentum there would be ignored.
    if (o.has("momentum")) o.error("momentum", "adam, adamw and lamb take beta1 and beta2, not momentum");
    opt.momentum = 0;
    opt.beta1 = o.number_or("beta1", 0.0, 0.999999, 0.9);
    opt.beta2 = o.number_or("beta2", 0.0, 0.999999999, 0.999);
    opt.epsilon = o.number_or("epsilon", 1e-12, 1.0, 1e-8);
  } else {
    opt.momentum = o.number_or("momentum", 0.0, 0.999999, opt.kind == OptimizerKind::Sgd ? 0.0 : 0.9);
  }
  // Plain SGD has no velocity: a momentum there would be ignored, so it is refused.
  if (opt.kind == OptimizerKind::Sgd && opt.momentum != 0)
    o.error("momentum", "plain sgd has no momentum; use kind: momentum or nesterov, or momentum: 0");
  opt.weight_decay = o.number_or("weight_decay", 0.0, 1.0, 0.0);
  opt.schedule = static_cast<LrSchedule>(o.choice_or("schedule", {"constant", "linear_decay"}, 0));
  opt.final_lr_factor = o.number_or("final_lr_factor", 0.0, 1.0, 1.0);
  opt.decay_steps = o.integer_or("decay_steps", 1, kSteps, 0);
  opt.warmup_steps = o.integer_or("warmup_steps", 0, kSteps, 0);
  opt.lr_min = o.number_or("lr_min", 1e-8, 1e3, 1e-4);
  opt.lr_max = o.number_or("lr_max", 1e-8, 1e3, 10.0);
  opt.one_minus_momentum_min = o.number_or("one_minus_momentum_min", 1e-6, 1.0, 1e-3);
  opt.one_minus_momentum_max = o.number_or("one_minus_momentum_max", 1e-6, 1.0, 0.5);
  if (opt.lr_min >= opt.lr_max) o.error("lr_max", "expected lr_max > lr_min");
  if (opt.schedule == LrSchedule::LinearDecay && opt.decay_steps == 0)
    o.error("decay_steps", "linear_decay needs decay_steps >= 1");
  o.check_unknown();
}

}  // namespace

bool is_adam_family(OptimizerKind k) {
  return k == OptimizerKind::Adam || k == OptimizerKind::AdamW || k == OptimizerKind::Lamb;
}

int optimizer_state_tensors(OptimizerKind k) {
  if (k == OptimizerKind::Sgd) return 0;
  return is_adam_family(k) ? 2 : 1;
}

WorkloadSpec parse_workload(const ConfigDoc& doc) {
  ConfigMap root(doc, doc.root());
  WorkloadSpec w;
  w.source_file = doc.path();
  w.name = root.text("name");
  if (root.has("bytes_per_element")) {
    root.mark_used("bytes_per_element");
    root.error("bytes_per_element", "replaced by a precision policy: write precision: with a preset (" +
                                        preset_names() + ") or {matmul, elementwise, master, gradients}");
  }
  w.precision = parse_precision(root);
  w.init = static_cast<WeightInit>(root.choice_or("init", {"he", "glorot"}, 0));
  parse_network(root, w);

  ConfigMap d = root.map("dataset");
  w.dataset.kind = dataset_kinds()[static_cast<size_t>(parse_kind(d, "kind", dataset_kinds()))].name;
  auto where = [&](const char* key) {
    return d.has(key) ? doc.at(d.node()[key], d.dotted(key), "") : Diagnostic{};
  };
  w.dataset.kind_at = where("kind");
  w.dataset.path = d.text_or("path", "/usr/share/datasets/fashion-mnist");
  w.dataset.validation_size = d.integer_or("validation_size", 1, kSamples, 10000);
  w.dataset.validation_size_at = where("validation_size");
  w.dataset.train_size = d.integer_or("train_size", 1, kSamples, 50000);
  d.check_unknown();

  parse_optimizer(root.map("optimizer"), w.optimizer);

  ConfigMap t = root.map("target");
  // Classifiers state an error rate; language models a validation cross-entropy in nats per token.
  if (t.has("validation_loss")) {
    if (t.has("validation_error")) t.error("validation_error", "give validation_error or validation_loss, not both");
    w.target.validation_loss = t.number("validation_loss", 1e-6, 100.0);
  } else {
    w.target.validation_error = t.number("validation_error", 0.0, 1.0);
  }
  w.target.eval_every = t.integer_or("eval_every", 1, kSteps, 100);
  w.target.max_steps = t.integer_or("max_steps", 1, kSteps, 100000);
  t.check_unknown();

  ConfigMap s = root.map("step_curve");
  w.step_curve.source = static_cast<StepCurveSource>(parse_kind(s, "source", step_curve_kinds()));
  if (w.step_curve.source == StepCurveSource::Law) {
    w.step_curve.n_inf = s.number("n_inf", 0.0, 1e12);
    w.step_curve.alpha = s.number("alpha", 0.0, 1e15);
  } else {
    w.step_curve.path = resolve_relative(doc.path(), s.text("path"));
    if (w.step_curve.source == StepCurveSource::Measure) {
      static const char* protocols[] = {"full", "quick"};
      w.step_curve.protocol = protocols[s.choice_or("protocol", {"full", "quick"}, 0)];
      w.step_curve.seed = static_cast<uint64_t>(s.integer_or("seed", 0, pow2(62), 1));
    }
  }
  s.check_unknown();
  root.finish();
  try {
    resolve_network(w.network);
  } catch (const std::invalid_argument& e) {
    const char* key = root.has("transformer") ? "transformer" : "network";
    throw ConfigError({doc.at(doc.root()[key], key, e.what())});
  }
  return w;
}

}  // namespace kp
