#pragma once
// Training time T(M, P) = N(M) * T_update(M, P) (Perrone et al. 2019) on grids of global batch M
// and learners P. Contract: points with M < P are skipped (a learner needs a sample), points that
// do not fit device memory are counted (infeasible_points), not listed; for each P the best M
// minimises T; the knee is the smallest P at which doubling P improves the best time
// by less than `knee_threshold` (0.1 = 10%); weak scaling keeps M/P fixed.
#include <cstdint>
#include <vector>

#include "core/hw_spec.h"
#include "models/step_curve/step_law.h"
#include "sim/update_model.h"

namespace kp {

struct TimePoint {
  int64_t batch = 0, learners = 0, per_learner_batch = 0;
  double steps = 0, t_update_s = 0, t_total_s = 0, energy_j = 0, cost_usd = 0;
  double chip_energy_j = 0;  // the chips' (and links') share of energy_j: dynamic + chip static
  UpdateBreakdown breakdown;
  Layout layout;           // the parallel layout (plain data parallelism: dp = P)
  MemoryParts memory;      // per chip, bytes
  bool fits = true;        // false: infeasible (does not fit device memory); never a best point
  // Average power per chip over the run (W): what power.tdp is checked against.
  double average_chip_power_w() const;
};

struct ScalingRow {
  int64_t learners = 0;
  TimePoint best;          // strong scaling: best M for this P
  TimePoint weak;          // M = weak_per_learner_batch * P
  double speedup = 0;      // best time at the smallest P / best time here
};

struct PredictOptions {
  std::vector<int64_t> batches, learners;
  double knee_threshold = 0.1;
  int64_t weak_per_learner_batch = 32;
};

struct Prediction {
  std::vector<TimePoint> points;     // the points that fit device memory
  int64_t infeasible_points = 0;     // (M, P) points of the grid that do not (not in `points`)
  std::vector<ScalingRow> scaling;   // one per P, ascending
  int64_t knee_learners = 0;         // 0 when no doubling in the grid falls under the threshold
  TimePoint knee;                    // the best point at the knee P (or at the largest P)
  TimePoint overall_best;            // the fastest point of the whole grid
  double b_crit = 0;
};

TimePoint evaluate_point(const UpdateModel& model, const StepLaw& law, const HardwareSpec& hw,
                         int64_t batch, int64_t learners);
Prediction predict(const UpdateModel& model, const StepLaw& law, const HardwareSpec& hw,
                   const PredictOptions& options);

// Knee over (P ascending, best time): the smallest P whose doubling 2P (present in the list)
// improves the time by less than threshold; 0 if none.
int64_t find_knee(const std::vector<int64_t>& learners, const std::vector<double>& best_time_s,
                  double threshold);

// For T_update = a + b*M/P + c and N = n_inf + alpha/M, the M minimising N*T_update:
// M* = sqrt(alpha (a + c) P / (n_inf b)).
double optimal_batch_closed_form(const StepLaw& law, double a_s, double b_s_per_sample, double c_s,
                                 int64_t learners);

// Powers of two from `from` to `to` inclusive.
std::vector<int64_t> powers_of_two(int64_t from, int64_t to);

}  // namespace kp
