#pragma once
// The evidence behind a fitted step curve, for reports: the measured points the law was fitted
// to and a pointwise confidence band of N(M). The band at batch M is the percentile interval of
// N(M) = n_inf + alpha/M over the fit's bootstrap laws (step_law_fit.h), so it keeps the
// correlation of n_inf and alpha that separate intervals on each would lose.
// Contract: deterministic (the fit's fixed seed); no bootstrap laws -> lo = hi = the fitted law.
#include <string>
#include <vector>

#include "models/step_curve/curve_csv.h"
#include "models/step_curve/step_law_fit.h"

namespace kp {

struct StepBand {
  std::vector<CurvePoint> measured;  // min steps per batch size, ascending (the fitted points)
  std::vector<double> measured_lo, measured_hi;  // the band at each measured batch size
  std::vector<double> batch, lo, hi; // the band, at log-spaced batch sizes, ascending
  double confidence = 0;             // e.g. 0.95
  std::string method;                // bootstrap method: "trials", "residuals" or "none"
  bool empty() const { return measured.empty(); }
};

// The band over [m_lo, m_hi] at `n` log-spaced batch sizes (n >= 2, 0 < m_lo < m_hi).
StepBand step_band(const StepLawFit& fit, double m_lo, double m_hi, int n, double confidence);

// Reads a curve CSV, fits it with `resamples` bootstrap resamples (seed 1) and returns the band
// over the union of [m_lo, m_hi] and the measured batch sizes. ConfigError on a bad file.
StepBand step_band_from_csv(const std::string& path, double m_lo, double m_hi, int resamples = 400,
                            double confidence = 0.95);

}  // namespace kp
