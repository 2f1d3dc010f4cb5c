#pragma once
// The step-curve CLI tests' tiny problem (curve_cli_test, curve_mpi_test): three pixels, ten
// overlapping classes, so the best validation error is ~0.22 and a target of 0.235 takes a few
// hundred steps; some trials never reach it and some are pruned. A wide hidden layer makes a run
// of 4 batch sizes x 8 trials last ~1 s: long enough to be killed in the middle.
#include <string>

namespace kp {

inline std::string tiny_curve_workload(const std::string& name) {
  return "name: " + name + R"(
input: {channels: 1, height: 3, width: 1}
classes: 10
network:
  - {kind: flatten}
  - {kind: dense, units: 512}
  - {kind: relu}
  - {kind: dense, units: 10}
  - {kind: softmax_cross_entropy}
dataset: {kind: synthetic}
optimizer: {kind: nesterov, learning_rate: 0.05, momentum: 0.9, lr_min: 0.001, lr_max: 3}
target: {validation_error: 0.235, eval_every: 10, max_steps: 1500}
step_curve: {source: law, n_inf: 100, alpha: 1000}
)";
}

}  // namespace kp
