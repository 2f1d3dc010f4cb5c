#include "core/workload_spec.h"

#include <stdexcept>

#include "core/config_map.h"
#include "core/kinds.h"
#include "core/limits.h"
#include "core/network_parse.h"

namespace kp {
namespace {

using namespace limits;

void parse_network(ConfigMap& root, WorkloadSpec& w) {
  ConfigMap in = root.map("input");
  w.network.input.c = in.integer("channels", 1, kChannels);
  w.network.input.h = in.integer_or("height", 1, kImageSide, 1);
  w.network.input.w = in.integer_or("width", 1, kImageSide, 1);
  if (w.network.input.c * w.network.input.h * w.network.input.w > kTensorElements)  // each <= 2^20
    in.error("channels", "channels x height x width is " +
                             std::to_string(w.network.input.c * w.network.input.h * w.network.input.w) +
                             " elements, expected at most " + format_limit(kTensorElements));
  in.check_unknown();
  w.network.classes = root.integer("classes", 2, kChannels);
  w.network.layers = parse_layers(root, "network");
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
  w.bytes_per_element = root.integer_or("bytes_per_element", 1, kBytesPerElement, 4);
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
  w.target.validation_error = t.number("validation_error", 0.0, 1.0);
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
    throw ConfigError({doc.at(doc.root()["network"], "network", e.what())});
  }
  return w;
}

}  // namespace kp
