#pragma once
// A training workload: network, data, optimizer, target and the source of its step curve. Field
// names match the YAML keys of workloads/*.yaml. Contract: parse_workload() validates everything
// (throws ConfigError with all problems); relative paths are resolved against the YAML's folder.
#include <cstdint>
#include <string>

#include "core/config_doc.h"
#include "core/config_error.h"
#include "core/network_spec.h"
#include "core/precision.h"

namespace kp {

// Adam (Kingma & Ba 2015) and AdamW (decoupled weight decay, Loshchilov & Hutter 2019) keep two
// state tensors per parameter; LAMB (You et al. 2020) adds a per-layer trust ratio to AdamW.
enum class OptimizerKind { Sgd, Momentum, Nesterov, Adam, AdamW, Lamb };
// State tensors of the size of the parameters that the optimizer keeps (velocity, moments).
int optimizer_state_tensors(OptimizerKind k);
bool is_adam_family(OptimizerKind k);
enum class LrSchedule { Constant, LinearDecay };
enum class StepCurveSource { Law, File, Measure };
// Weight initialisation of the reference trainer: He et al. 2015 N(0, 2/fan_in), or Glorot &
// Bengio 2010 U(-a, a) with a = sqrt(6 / (fan_in + fan_out)).
enum class WeightInit { He, Glorot };

struct DatasetSpec {
  std::string kind;          // "fashion_mnist", "synthetic", or "none" (not trainable here)
  std::string path;          // folder holding the IDX .gz files
  int64_t validation_size = 10000;  // held out from the end of the training set (Shallue et al.)
  int64_t train_size = 0;    // samples per epoch for `none` datasets (e.g. CIFAR-10: 50000)
  // Where `kind` and `validation_size` were written (message empty; origin empty where the key
  // was left out): a consumer that finds one unusable, such as the trainer with `none` or with
  // more validation images than the data has, reports its error there, not at the file alone.
  Diagnostic kind_at, validation_size_at;
};

struct OptimizerSpec {
  OptimizerKind kind = OptimizerKind::Nesterov;
  double learning_rate = 0.01;
  double momentum = 0.9;
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;  // Adam family
  double weight_decay = 0.0;
  LrSchedule schedule = LrSchedule::Constant;
  double final_lr_factor = 1.0;   // linear decay: lr at decay_steps = lr * final_lr_factor
  int64_t decay_steps = 0;
  int64_t warmup_steps = 0;
  double lr_min = 1e-4, lr_max = 10.0;                 // step-curve search range
  double one_minus_momentum_min = 1e-3, one_minus_momentum_max = 0.5;
};

struct TargetSpec {
  double validation_error = 0.1;
  double validation_loss = 0;    // nats per token where given instead (language models)
  int64_t eval_every = 100;      // steps between validation evaluations
  int64_t max_steps = 100000;    // budget per trial
};

struct StepCurveSpec {
  StepCurveSource source = StepCurveSource::Law;
  double n_inf = 0, alpha = 0;   // law
  std::string path;              // file (CSV: batch,steps) or the measure cache
  std::string protocol = "full"; // measure: full | quick (models/step_curve/measure/curve_protocol.h)
  uint64_t seed = 1;             // measure: trial i is seeded seed + i
};

struct WorkloadSpec {
  std::string name;
  std::string source_file;
  NetworkSpec network;
  DatasetSpec dataset;
  OptimizerSpec optimizer;
  TargetSpec target;
  StepCurveSpec step_curve;
  WeightInit init = WeightInit::He;  // YAML `init: he | glorot`
  PrecisionSpec precision;  // `precision:` (core/precision.h); absent: fp32
};

WorkloadSpec parse_workload(const ConfigDoc& doc);

}  // namespace kp
