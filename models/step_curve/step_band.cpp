#include "models/step_curve/step_band.h"

#include <algorithm>
#include <cmath>

namespace kp {
namespace {

// Linear interpolation between order statistics (the same definition as the fit's intervals).
double percentile(std::vector<double>& v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const size_t i = static_cast<size_t>(pos);
  return i + 1 < v.size() ? v[i] + (pos - static_cast<double>(i)) * (v[i + 1] - v[i]) : v.back();
}

}  // namespace

StepBand step_band(const StepLawFit& fit, double m_lo, double m_hi, int n, double confidence) {
  StepBand band;
  band.measured = fit.points;
  band.confidence = confidence;
  band.method = fit.bootstrap_method;
  std::vector<double> samples(fit.bootstrap_laws.size());
  const auto interval = [&](double m, std::vector<double>& lo, std::vector<double>& hi) {
    for (size_t b = 0; b < samples.size(); ++b) samples[b] = fit.bootstrap_laws[b].steps(m);
    lo.push_back(samples.empty() ? fit.law.steps(m) : percentile(samples, 0.5 * (1 - confidence)));
    hi.push_back(samples.empty() ? fit.law.steps(m) : percentile(samples, 0.5 * (1 + confidence)));
  };
  for (int k = 0; k < n; ++k) {
    band.batch.push_back(k == n - 1 ? m_hi : m_lo * std::pow(m_hi / m_lo, static_cast<double>(k) / (n - 1)));
    interval(band.batch.back(), band.lo, band.hi);
  }
  for (const CurvePoint& p : band.measured) interval(p.batch, band.measured_lo, band.measured_hi);
  return band;
}

StepBand step_band_from_csv(const std::string& path, double m_lo, double m_hi, int resamples, double confidence) {
  FitOptions options;
  options.origin = path;
  options.bootstrap_resamples = resamples;
  options.confidence = confidence;
  const StepLawFit fit = fit_step_law(read_curve_csv(path), options);
  for (const CurvePoint& p : fit.points) {
    m_lo = std::min(m_lo, p.batch);
    m_hi = std::max(m_hi, p.batch);
  }
  return step_band(fit, m_lo, m_hi, 48, confidence);
}

}  // namespace kp
