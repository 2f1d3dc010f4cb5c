#pragma once
// Named step-curve protocols: the batch sizes, trials and cost rules of a measurement, so that a
// cached curve says how it was made (its CSV provenance and the workload's `step_curve.protocol`).
// - full: Shallue et al. 2018's protocol at the size: 10 batch sizes 16..8192 (powers of
//   two: perfect scaling through the plateau of the Fashion-MNIST MLP), 16 Halton trials each.
// - quick: for the default study (<= 3 min on 2 cores): 5 batch sizes 16, 64, 256, 1024, 2048,
//   8 trials each. Fewer trials find a slightly worse minimum (more steps); without the plateau
//   (M >= 4096 costs ~70-145 ms per step here) N_inf is an extrapolation with a wider interval.
// Both evaluate every ceil(8192/M) steps (eval_rule.h) and give batch size M a budget of
// min(max_steps, budget_steps + ceil(budget_samples/M)) steps (curve_measure.h), and run each
// batch size's trials largest effective learning rate first. The budget is a law-shaped ceiling
// ~2.5x an earlier full measurement's fit (N_inf ~215 steps, alpha ~1.4e5 samples): a trial that
// needs more than 2.5x the best trial's steps cannot be the minimum, and a batch size whose best
// trial needs more shows up as a failed batch size, never as a silent bias.
#include <cstdint>
#include <string>
#include <vector>

#include "models/step_curve/measure/curve_measure.h"

namespace kp {

struct CurveProtocol {
  std::string name;  // "full", "quick" or "custom" (flags that override a named protocol)
  std::vector<int64_t> batches;
  int trials = 16;
  int64_t eval_samples = 0;
  int64_t budget_steps = 0, budget_samples = 0;
  TrialOrder order = TrialOrder::halton;
};

// Throws ConfigError(origin, ...) for a name other than full or quick.
CurveProtocol curve_protocol(const std::string& name, const std::string& origin = "--protocol");

// Copies the protocol's batches, trials and rules into the search spec.
void apply_protocol(const CurveProtocol& protocol, CurveSearchSpec& spec);

}  // namespace kp
