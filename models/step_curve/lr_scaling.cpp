#include "models/step_curve/lr_scaling.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "core/config_error.h"
#include "models/step_curve/csv_table.h"

namespace kp {

double student_t_975(int dof) {
  // t_{0.975} for 1..30 degrees of freedom (standard tables, e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2).
  static const double t[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                             2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                             2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (dof < 1) return std::numeric_limits<double>::infinity();
  if (dof <= 30) return t[dof - 1];
  return 1.960 + 2.4 / dof;  // within 0.002 of the exact quantile above 30
}

std::vector<TrialRow> read_trial_rows(const std::string& path) {
  CsvTable table = read_csv_table(path);
  const char* names[] = {"batch", "steps", "learning_rate", "momentum"};
  int col[4];
  for (int i = 0; i < 4; ++i) {
    col[i] = table.find(names[i]);
    if (col[i] < 0)
      throw ConfigError({{path, table.header_line, 1, "",
                          std::string("header lacks the column `") + names[i] +
                              "` (a per-trial curve from `kneepoint curve` has it)"}});
  }
  const int trial_col = table.find("trial");
  std::vector<Diagnostic> diagnostics = table.diagnostics;
  std::vector<TrialRow> rows;
  int index = 0;
  for (const CsvRow& r : table.rows) {
    TrialRow t;
    double* out[] = {&t.batch, &t.steps, &t.learning_rate, &t.momentum};
    bool ok = true;
    for (int i = 0; i < 4; ++i) {
      const std::string& f = r.fields[static_cast<size_t>(col[i])];
      if (i == 1 && is_failure_marker(f)) {  // as read_curve_csv() reads the same column
        t.steps = std::numeric_limits<double>::infinity();
        continue;
      }
      if (!parse_double(f, *out[i]) || !std::isfinite(*out[i]) || (i < 3 && !(*out[i] > 0)) ||
          (i == 3 && !(*out[i] >= 0 && *out[i] < 1))) {
        diagnostics.push_back({path, r.line, r.cols[static_cast<size_t>(col[i])], names[i],
                               std::string("expected ") + (i == 3 ? "a number in [0, 1)" : "a number > 0") +
                                   ", got \"" + f + "\""});
        ok = false;
      }
    }
    double trial = index++;
    if (trial_col >= 0 && !parse_double(r.fields[static_cast<size_t>(trial_col)], trial)) {
      diagnostics.push_back({path, r.line, r.cols[static_cast<size_t>(trial_col)], "trial",
                             "expected an integer, got \"" + r.fields[static_cast<size_t>(trial_col)] + "\""});
      ok = false;
    }
    t.trial = static_cast<int>(trial);
    if (ok) rows.push_back(t);
  }
  throw_if_any(std::move(diagnostics));
  return rows;
}

std::vector<BestMetaparameters> best_metaparameters(const std::vector<TrialRow>& rows) {
  std::map<double, BestMetaparameters> best;
  for (const TrialRow& r : rows) {
    if (!std::isfinite(r.steps)) continue;
    auto it = best.find(r.batch);
    if (it == best.end() || r.steps < it->second.steps ||
        (r.steps == it->second.steps && r.trial < it->second.trial))
      best[r.batch] = {r.batch, r.steps, r.learning_rate, r.momentum, r.trial};
  }
  std::vector<BestMetaparameters> out;
  for (const auto& kv : best) out.push_back(kv.second);
  return out;
}

ScalingExponent fit_exponent(const std::vector<double>& x, const std::vector<double>& y,
                             const std::string& origin) {
  const size_t n = x.size();
  if (n < 3 || y.size() != n)
    throw ConfigError(origin, "the scaling exponent needs the best trial of >= 3 batch sizes, got " +
                                  std::to_string(n));
  double mx = 0, my = 0;
  for (size_t i = 0; i < n; ++i) mx += std::log(x[i]), my += std::log(y[i]);
  mx /= double(n), my /= double(n);
  double sxx = 0, sxy = 0, syy = 0;
  for (size_t i = 0; i < n; ++i) {
    const double dx = std::log(x[i]) - mx, dy = std::log(y[i]) - my;
    sxx += dx * dx, sxy += dx * dy, syy += dy * dy;
  }
  if (!(sxx > 0)) throw ConfigError(origin, "the scaling exponent needs at least two distinct batch sizes");
  ScalingExponent e;
  e.value = sxy / sxx;
  const double ssr = std::max(0.0, syy - e.value * sxy);
  const double se = std::sqrt(ssr / double(n - 2) / sxx);
  const double half = student_t_975(static_cast<int>(n) - 2) * se;
  e.lo = e.value - half, e.hi = e.value + half;
  e.r2 = syy > 0 ? 1.0 - ssr / syy : 1.0;
  return e;
}

LrScaling fit_lr_scaling(const std::vector<TrialRow>& rows, const std::string& origin) {
  LrScaling s;
  s.best = best_metaparameters(rows);
  std::vector<double> m, lr, eff;
  for (const BestMetaparameters& b : s.best) {
    m.push_back(b.batch);
    lr.push_back(b.learning_rate);
    eff.push_back(b.learning_rate / (1.0 - b.momentum));
  }
  s.lr = fit_exponent(m, lr, origin);
  s.effective_lr = fit_exponent(m, eff, origin);
  return s;
}

}  // namespace kp
