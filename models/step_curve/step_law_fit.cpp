#include "models/step_curve/step_law_fit.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>

#include "core/config_error.h"

namespace kp {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct LogData {
  std::vector<double> log_m, log_n;
};

// For fixed b (= B_crit), log N_inf = mean(log N - log(1 + b/M)); returns the SSE at that optimum.
double sse_at(const LogData& d, double log_b, double* log_n_inf) {
  const std::size_t n = d.log_m.size();
  double mean = 0.0;
  for (std::size_t i = 0; i < n; ++i) mean += d.log_n[i] - std::log1p(std::exp(log_b - d.log_m[i]));
  mean /= static_cast<double>(n);
  double sse = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double r = d.log_n[i] - std::log1p(std::exp(log_b - d.log_m[i])) - mean;
    sse += r * r;
  }
  if (log_n_inf) *log_n_inf = mean;
  return sse;
}

// Boundary law with a constant offset c in log space: log N = c + shift_i.
double sse_boundary(const LogData& d, bool perfect_scaling, double* c) {
  const std::size_t n = d.log_m.size();
  double mean = 0.0;
  for (std::size_t i = 0; i < n; ++i) mean += d.log_n[i] + (perfect_scaling ? d.log_m[i] : 0.0);
  mean /= static_cast<double>(n);
  double sse = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double r = d.log_n[i] + (perfect_scaling ? d.log_m[i] : 0.0) - mean;
    sse += r * r;
  }
  *c = mean;
  return sse;
}

StepLaw solve(const LogData& d) {
  const auto [mn, mx] = std::minmax_element(d.log_m.begin(), d.log_m.end());
  // b far outside the measured batch range is indistinguishable from the boundary laws.
  const double lo = *mn - 12.0, hi = *mx + 12.0;
  constexpr int kGrid = 240;
  int best = 0;
  double best_sse = kInf;
  for (int k = 0; k <= kGrid; ++k) {
    const double s = sse_at(d, lo + (hi - lo) * k / kGrid, nullptr);
    if (s < best_sse) best_sse = s, best = k;
  }
  double a = lo + (hi - lo) * std::max(best - 1, 0) / kGrid;
  double b = lo + (hi - lo) * std::min(best + 1, kGrid) / kGrid;
  const double g = 0.5 * (std::sqrt(5.0) - 1.0);
  double x1 = b - g * (b - a), x2 = a + g * (b - a);
  double f1 = sse_at(d, x1, nullptr), f2 = sse_at(d, x2, nullptr);
  for (int it = 0; it < 200 && b - a > 1e-13; ++it) {
    if (f1 <= f2) {
      b = x2, x2 = x1, f2 = f1, x1 = b - g * (b - a), f1 = sse_at(d, x1, nullptr);
    } else {
      a = x1, x1 = x2, f1 = f2, x2 = a + g * (b - a), f2 = sse_at(d, x2, nullptr);
    }
  }
  const double log_b = 0.5 * (a + b);
  double log_n_inf = 0.0;
  const double interior = sse_at(d, log_b, &log_n_inf);

  double c_flat = 0.0, c_perfect = 0.0;
  const double flat = sse_boundary(d, false, &c_flat);        // alpha = 0
  const double perfect = sse_boundary(d, true, &c_perfect);   // N_inf = 0
  StepLaw law{std::exp(log_n_inf), std::exp(log_n_inf + log_b)};
  double best_total = interior;
  if (flat < best_total) law = {std::exp(c_flat), 0.0}, best_total = flat;
  if (perfect < best_total) law = {0.0, std::exp(c_perfect)};
  return law;
}

LogData to_log(const std::vector<CurvePoint>& points) {
  LogData d;
  for (const CurvePoint& p : points) {
    d.log_m.push_back(std::log(p.batch));
    d.log_n.push_back(std::log(p.steps));
  }
  return d;
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const std::size_t i = static_cast<std::size_t>(std::floor(pos));
  if (i + 1 >= v.size()) return v.back();
  const double frac = pos - static_cast<double>(i);
  if (frac == 0.0) return v[i];
  if (!std::isfinite(v[i + 1])) return v[i + 1];  // an unbounded B_crit in the upper tail
  return v[i] + frac * (v[i + 1] - v[i]);
}

// Unbiased enough for indices (2^64 is far above any sample size); std distributions are not
// specified bit-for-bit across standard libraries, so this keeps resamples reproducible.
std::size_t draw(std::mt19937_64& rng, std::size_t n) { return static_cast<std::size_t>(rng() % n); }

}  // namespace

const char* to_string(Regime regime) {
  switch (regime) {
    case Regime::perfect_scaling: return "perfect scaling";
    case Regime::diminishing_returns: return "diminishing returns";
    case Regime::plateau: return "plateau";
  }
  return "?";
}

Regime regime_of(const StepLaw& law, double batch) {
  if (law.alpha / batch >= 9.0 * law.n_inf) return Regime::perfect_scaling;
  if (law.steps(batch) <= 1.1 * law.n_inf) return Regime::plateau;
  return Regime::diminishing_returns;
}

std::vector<CurvePoint> best_per_batch(const std::vector<CurvePoint>& trials) {
  std::map<double, double> best;
  for (const CurvePoint& t : trials) {
    auto [it, inserted] = best.emplace(t.batch, t.steps);
    if (!inserted) it->second = std::min(it->second, t.steps);
  }
  std::vector<CurvePoint> out;
  for (const auto& [batch, steps] : best) out.push_back({batch, steps});
  return out;
}

StepLaw fit_law_log_ls(const std::vector<CurvePoint>& points, const std::string& origin) {
  std::vector<double> batches;
  for (const CurvePoint& p : points) {
    if (!(p.batch > 0.0) || !std::isfinite(p.batch) || !(p.steps > 0.0) || !std::isfinite(p.steps))
      throw ConfigError(origin, "step-curve fit needs finite batch > 0 and steps > 0, got batch " +
                                    std::to_string(p.batch) + ", steps " + std::to_string(p.steps));
    batches.push_back(p.batch);
  }
  std::sort(batches.begin(), batches.end());
  if (std::unique(batches.begin(), batches.end()) - batches.begin() < 2)
    throw ConfigError(origin, "step-curve fit needs at least 2 distinct batch sizes with a finite "
                              "step count, got " + std::to_string(batches.size()) + " point(s)");
  return solve(to_log(points));
}

StepLawFit fit_step_law(const std::vector<CurvePoint>& trials, const FitOptions& options) {
  StepLawFit fit;
  std::map<double, std::vector<double>> by_batch;  // all trials, failed included
  for (const CurvePoint& t : trials) {
    if (!(t.batch > 0.0) || !std::isfinite(t.batch) || std::isnan(t.steps) || !(t.steps > 0.0))
      throw ConfigError(options.origin, "trial with batch " + std::to_string(t.batch) + ", steps " +
                                            std::to_string(t.steps) +
                                            ": expected batch > 0 and steps > 0 (inf = failed)");
    by_batch[t.batch].push_back(t.steps);
  }
  if (trials.empty()) throw ConfigError(options.origin, "step-curve fit: no trials");
  for (const CurvePoint& p : best_per_batch(trials)) {
    if (std::isfinite(p.steps)) fit.points.push_back(p);
    else fit.dropped_batches.push_back(p.batch);
  }
  if (fit.points.empty())
    throw ConfigError(options.origin, "step-curve fit: every trial failed (no finite step count)");
  fit.law = fit_law_log_ls(fit.points, options.origin);

  // Goodness of fit in log space.
  const std::size_t n = fit.points.size();
  std::vector<double> residuals;
  double mean = 0.0, ss_res = 0.0, ss_tot = 0.0;
  for (const CurvePoint& p : fit.points) mean += std::log(p.steps) / static_cast<double>(n);
  for (const CurvePoint& p : fit.points) {
    const double r = std::log(p.steps) - std::log(fit.law.steps(p.batch));
    residuals.push_back(r);
    ss_res += r * r;
    ss_tot += (std::log(p.steps) - mean) * (std::log(p.steps) - mean);
  }
  fit.r2_log = ss_tot > 0.0 ? 1.0 - ss_res / ss_tot : 1.0;
  fit.rmse_log = std::sqrt(ss_res / static_cast<double>(n));

  // Bootstrap.
  bool per_trial = false;
  for (const auto& [batch, steps] : by_batch) per_trial = per_trial || steps.size() >= 2;
  std::vector<double> n_inf, alpha, b_crit;
  std::mt19937_64 rng(options.seed);
  const double inflate = n > 2 ? std::sqrt(static_cast<double>(n) / static_cast<double>(n - 2)) : 1.0;
  const int max_attempts = 4 * options.bootstrap_resamples;
  for (int attempt = 0; attempt < max_attempts &&
                        static_cast<int>(n_inf.size()) < options.bootstrap_resamples; ++attempt) {
    std::vector<CurvePoint> sample;
    if (per_trial) {
      for (const auto& [batch, steps] : by_batch) {
        double best = kInf;
        for (std::size_t k = 0; k < steps.size(); ++k) best = std::min(best, steps[draw(rng, steps.size())]);
        if (std::isfinite(best)) sample.push_back({batch, best});
      }
      if (sample.size() < 2) continue;  // a resample without two batch sizes has no fit
    } else {
      for (const CurvePoint& p : fit.points)
        sample.push_back({p.batch, fit.law.steps(p.batch) * std::exp(inflate * residuals[draw(rng, n)])});
    }
    const StepLaw law = solve(to_log(sample));
    n_inf.push_back(law.n_inf);
    alpha.push_back(law.alpha);
    b_crit.push_back(law.b_crit());
    fit.bootstrap_laws.push_back(law);
  }
  fit.resamples = static_cast<int>(n_inf.size());
  fit.bootstrap_method = fit.resamples == 0 ? "none" : per_trial ? "trials" : "residuals";

  auto estimate = [&](double value, const std::vector<double>& samples) {
    if (samples.empty()) return Estimate{value, value, value};
    const double tail = 0.5 * (1.0 - options.confidence);
    return Estimate{value, quantile(samples, tail), quantile(samples, 1.0 - tail)};
  };
  fit.n_inf = estimate(fit.law.n_inf, n_inf);
  fit.alpha = estimate(fit.law.alpha, alpha);
  fit.b_crit = estimate(fit.law.b_crit(), b_crit);
  fit.max_useful_batch = {10.0 * fit.b_crit.value, 10.0 * fit.b_crit.lo, 10.0 * fit.b_crit.hi};
  return fit;
}

}  // namespace kp
