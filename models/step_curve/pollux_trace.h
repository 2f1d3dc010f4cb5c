#pragma once
// Pollux (Qiao et al., OSDI 2021) training traces: one `validation-<B>.csv` per global batch size B
// with columns progress,iteration,metric,grad_sqr,grad_var (one row per evaluation; metric =
// validation top-1 accuracy; grad_sqr ~ |G|^2 and grad_var ~ tr(Sigma)/B0 with B0 = 128, AdaptDL's
// estimates). Contract: a step curve is taken at a metric threshold every run reaches: for each
// run, steps = the `iteration` of the first row whose metric >= threshold (Shallue et al. 2018's
// steps-to-result). A run that never reaches it is a ConfigError naming its file.
#include <string>
#include <vector>

#include "models/step_curve/curve_csv.h"

namespace kp {

struct PolluxRow {
  double progress = 0.0, iteration = 0.0, metric = 0.0, grad_sqr = 0.0, grad_var = 0.0;
  int line = 0;  // 1-based line in its file, for messages
};

struct PolluxRun {
  std::string path;
  double batch = 0.0;
  std::vector<PolluxRow> rows;

  double best_metric() const;
  // B_simple ~= b0 * mean(grad_var) / mean(grad_sqr) over the whole run: numerator and
  // denominator averaged separately (McCandlish et al. 2018), so the late rows with a tiny |G|^2
  // do not dominate as they would in a mean of per-row ratios.
  double b_simple(double b0 = 128.0) const;
};

// All validation-<B>.csv files of dir, ascending by B; ConfigError if there are none.
std::vector<PolluxRun> read_pollux_traces(const std::string& dir);

// The highest threshold every run reaches: the best metric of the worst run.
double pollux_default_threshold(const std::vector<PolluxRun>& runs);

// One point per run: (batch, first iteration with metric >= threshold).
std::vector<CurvePoint> pollux_step_curve(const std::vector<PolluxRun>& runs, double threshold);

}  // namespace kp
