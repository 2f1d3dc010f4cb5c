#include "models/time_model/time_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "models/time_model/chip_cost.h"
#include "models/time_model/power_model.h"

namespace kp {

double TimePoint::average_chip_power_w() const { return kp::average_chip_power_w(chip_energy_j, learners, t_total_s); }

TimePoint evaluate_point(const UpdateModel& model, const StepLaw& law, const HardwareSpec& hw,
                         int64_t batch, int64_t learners) {
  UpdateResult u = model.simulate(batch, learners);
  apply_power_cap(hw, learners, u);
  TimePoint p;
  p.batch = batch;
  p.learners = learners;
  p.per_learner_batch = u.per_learner_batch;
  p.steps = law.steps(static_cast<double>(batch));
  p.t_update_s = u.breakdown.t_update_s;
  p.t_total_s = p.steps * p.t_update_s;
  // Static power runs over the whole update, compute and waiting alike; hosts are not chips.
  const StaticPower st = static_power(hw, learners);
  const double chips = static_cast<double>(learners);
  const double busy_j = chips * hw.power.chip_busy_w * busy_seconds(u.breakdown);
  p.chip_energy_j = p.steps * (u.energy_j + busy_j + chips * st.chip_w * p.t_update_s);
  p.energy_j = p.steps * (u.energy_j + busy_j + st.system_w * p.t_update_s);
  p.cost_usd = chips * p.t_total_s / 3600.0 * chip_hour_usd(hw) + p.energy_j * hw.cost.electricity_usd_per_j;
  p.breakdown = u.breakdown;
  p.layout = u.layout, p.memory = u.memory, p.fits = u.fits;
  return p;
}

int64_t find_knee(const std::vector<int64_t>& learners, const std::vector<double>& best_time_s,
                  double threshold) {
  for (size_t i = 0; i < learners.size(); ++i) {
    for (size_t j = i + 1; j < learners.size(); ++j) {
      if (learners[j] != 2 * learners[i]) continue;
      if (best_time_s[j] > (1.0 - threshold) * best_time_s[i]) return learners[i];
    }
  }
  return 0;
}

Prediction predict(const UpdateModel& model, const StepLaw& law, const HardwareSpec& hw,
                   const PredictOptions& options) {
  if (options.batches.empty() || options.learners.empty())
    throw std::invalid_argument("predict: empty batch or learner grid");
  Prediction out;
  out.b_crit = law.b_crit();
  std::vector<int64_t> ps = options.learners;
  std::sort(ps.begin(), ps.end());
  ps.erase(std::unique(ps.begin(), ps.end()), ps.end());
  std::vector<int64_t> ms = options.batches;
  std::sort(ms.begin(), ms.end());
  ms.erase(std::unique(ms.begin(), ms.end()), ms.end());
  out.overall_best.t_total_s = std::numeric_limits<double>::infinity();
  std::vector<double> best_times;
  std::vector<int64_t> best_ps;
  for (int64_t p : ps) {
    ScalingRow row;
    row.learners = p;
    row.best.t_total_s = std::numeric_limits<double>::infinity();
    for (int64_t m : ms) {
      if (m < p) continue;
      const TimePoint tp = evaluate_point(model, law, hw, m, p);
      if (!tp.fits) {
        ++out.infeasible_points;
        continue;
      }
      out.points.push_back(tp);
      if (tp.t_total_s < row.best.t_total_s) row.best = tp;
    }
    if (row.best.batch == 0) continue;  // no batch in the grid is large enough for this P
    row.weak = evaluate_point(model, law, hw, options.weak_per_learner_batch * p, p);
    if (row.best.t_total_s < out.overall_best.t_total_s) out.overall_best = row.best;
    best_ps.push_back(p);
    best_times.push_back(row.best.t_total_s);
    out.scaling.push_back(row);
  }
  if (out.scaling.empty()) throw std::invalid_argument("predict: no (M, P) point with M >= P that fits memory");
  for (ScalingRow& row : out.scaling) row.speedup = out.scaling.front().best.t_total_s / row.best.t_total_s;
  out.knee_learners = find_knee(best_ps, best_times, options.knee_threshold);
  out.knee = out.scaling.back().best;
  for (const ScalingRow& row : out.scaling)
    if (row.learners == out.knee_learners) out.knee = row.best;
  return out;
}

double optimal_batch_closed_form(const StepLaw& law, double a_s, double b_s_per_sample, double c_s,
                                 int64_t learners) {
  return std::sqrt(law.alpha * (a_s + c_s) * static_cast<double>(learners) / (law.n_inf * b_s_per_sample));
}

std::vector<int64_t> powers_of_two(int64_t from, int64_t to) {
  std::vector<int64_t> out;
  for (int64_t v = std::max<int64_t>(1, from); v <= to; v *= 2) {
    out.push_back(v);
    if (v > to / 2) break;  // the next doubling would pass `to` (or overflow near INT64_MAX)
  }
  return out;
}

}  // namespace kp
