#pragma once
// Published steps-to-target (e.g. workloads/published/resnet50_imagenet_steps.csv): one row per
// training run that a paper or benchmark reports, so that a workload's law can be fitted to them
// and checked against them. A curve file (curve_csv.h) with the extra, required columns
//   target     the quality the steps are counted to (e.g. top-1 accuracy), a number in (0, 1]
//   optimizer  momentum | lars | lamb: they give different curves and must not be mixed in a fit
//   measure    to_target (steps at which the run first reached target) | schedule (the length of
//              a fixed schedule at whose end the run was at or past target: an upper bound only)
//   source     a non-empty citation key, explained in the file's comment lines
// Other columns (e.g. epochs) are allowed and ignored. Contract: every bad row is reported as
// file:line:col (all collected, one ConfigError); failed runs (steps = inf) are not allowed, since a
// publication reports runs that reached their target.
#include <string>
#include <vector>

#include "models/step_curve/curve_csv.h"

namespace kp {

enum class PublishedMeasure { to_target, schedule };

struct PublishedRun {
  double batch = 0.0;
  double steps = 0.0;
  double target = 0.0;
  std::string optimizer;
  PublishedMeasure measure = PublishedMeasure::to_target;
  std::string source;
  int line = 0;  // 1-based line in the file
};

std::vector<PublishedRun> read_published_curve(const std::string& path);

// The runs of one optimizer, measure and target (|target - run.target| <= 1e-9) as curve points,
// in file order; fit_step_law() then takes them as trials.
std::vector<CurvePoint> select_runs(const std::vector<PublishedRun>& runs, const std::string& optimizer,
                                    PublishedMeasure measure, double target);

// One point per batch size, ascending, at the mean of that batch size's runs. For runs that
// repeat one setting with other seeds (MLPerf's reference convergence points) the mean is the
// expected steps; the minimum that fit_step_law() takes would be the luckiest seed (Shallue et al.
// 2018 take the minimum over metaparameter trials, not over seeds).
std::vector<CurvePoint> mean_per_batch(const std::vector<CurvePoint>& runs);

}  // namespace kp
