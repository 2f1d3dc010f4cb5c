#include "tools/validate/calibration_fit.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <tuple>

#include "core/number_format.h"
#include "tools/validate/step_terms.h"

namespace kp {

namespace {

constexpr double kMinEfficiency = 0.01, kMaxEfficiency = 1.0;  // chip.compute.efficiency's range
constexpr double kMaxLaunchS = 10.0;                           // runtime.kernel_launch's limit
constexpr double kCollinear = 30.0;  // Belsley, Kuh & Welsch (1980): condition index of collinearity

// Weighted sums over the rows of z_i ~ N_i L + O (z: what is left of y after base and the
// launch-bound kernels' constant part): the quadratic sse(L, O) in closed form.
struct Sums {
  double w = 0, wz = 0, wn = 0, wnn = 0, wnz = 0, wzz = 0;
  void add(double wi, double n, double z, double sign) {
    w += sign * wi, wz += sign * wi * z, wn += sign * wi * n;
    wnn += sign * wi * n * n, wnz += sign * wi * n * z, wzz += sign * wi * z * z;
  }
  double sse(double l, double o) const {
    return wzz - 2 * l * wnz - 2 * o * wz + l * l * wnn + 2 * l * o * wn + o * o * w;
  }
};

void consider(LaunchOverheadFit& best, const Sums& s, double l, double o) {
  const double v = s.sse(l, o);
  if (v < best.sse) best = {v, l, o};
}

// The minimum of the convex quadratic s.sse over L in [lo, hi], O >= 0: it lies at the unconstrained
// minimum, on an edge L = lo or L = hi (O at its optimum for that L, clamped at 0) or on O = 0.
void solve_segment(LaunchOverheadFit& best, const Sums& s, double lo, double hi) {
  auto overhead_at = [&](double l) { return std::max(0.0, (s.wz - l * s.wn) / s.w); };
  const double var = s.wnn * s.w - s.wn * s.wn;
  if (var > 1e-12 * s.wnn * s.w) {
    const double l = (s.wnz * s.w - s.wn * s.wz) / var;
    const double o = (s.wz - l * s.wn) / s.w;
    if (l >= lo && l <= hi && o >= 0) consider(best, s, l, o);
  }
  consider(best, s, lo, overhead_at(lo));
  consider(best, s, hi, overhead_at(hi));
  if (s.wnn > 0) consider(best, s, std::clamp(s.wnz / s.wnn, lo, hi), 0.0);
}

}  // namespace

// A sweep over L's breakpoints (the kernel times c_k), on each segment of which every row's time
// is linear in L.
LaunchOverheadFit fit_launch_overhead(const std::vector<RowTerms>& rows, const std::vector<double>& y, const std::vector<double>& w) {
  struct Event {
    double c;
    size_t row;
    double runs;
  };
  std::vector<Event> events;
  for (size_t i = 0; i < rows.size(); ++i)
    for (const auto& [c, runs] : rows[i].kernels) events.push_back({c, i, runs});
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return std::tie(a.c, a.row, a.runs) < std::tie(b.c, b.row, b.runs);
  });
  // Row i on a segment: t_i = base_i + N_i L - A_i + O, N_i runs and A_i run-seconds of the
  // kernels with c_k below the segment.
  std::vector<double> n(rows.size(), 0.0), a(rows.size(), 0.0);
  Sums s;
  for (size_t i = 0; i < rows.size(); ++i) s.add(w[i], 0.0, y[i] - rows[i].base_s, 1.0);
  LaunchOverheadFit best;
  double lo = 0;
  size_t e = 0;
  while (true) {
    while (e < events.size() && events[e].c <= lo) {  // kernels launch-bound for every L > lo
      const Event& ev = events[e++];
      const size_t i = ev.row;
      s.add(w[i], n[i], y[i] - rows[i].base_s + a[i], -1.0);
      n[i] += ev.runs, a[i] += ev.runs * ev.c;
      s.add(w[i], n[i], y[i] - rows[i].base_s + a[i], 1.0);
    }
    const double hi = e < events.size() ? std::min(events[e].c, kMaxLaunchS) : kMaxLaunchS;
    solve_segment(best, s, lo, hi);
    if (e >= events.size() || hi >= kMaxLaunchS) break;
    lo = hi;
  }
  best.sse = std::max(0.0, best.sse);
  return best;
}

namespace {

LaunchOverheadFit fixed_launch(const std::vector<RowTerms>& rows, const std::vector<double>& y, const std::vector<double>& w,
                   double launch_s) {
  double sw = 0, swz = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const double z = y[i] - rows[i].step_time(launch_s, 0.0);
    sw += w[i], swz += w[i] * z;
  }
  LaunchOverheadFit r{0, launch_s, std::max(0.0, swz / sw)};
  for (size_t i = 0; i < rows.size(); ++i) {
    const double d = rows[i].step_time(launch_s, r.overhead_s) - y[i];
    r.sse += w[i] * d * d;
  }
  return r;
}

struct Best {
  double efficiency = 0;
  LaunchOverheadFit inner;
};

// 1-D search over e: the best of a log grid of 49 points over [0.01, 1] (ratio 1.1 between
// neighbours), then golden-section search between the best point's neighbours.
Best search_efficiency(const StepTerms& terms, const std::function<LaunchOverheadFit(const std::vector<RowTerms>&)>& inner) {
  Best best;
  auto eval = [&](double e) {
    const LaunchOverheadFit r = inner(terms.at(e));
    if (r.sse < best.inner.sse) best = {e, r};
    return r.sse;
  };
  constexpr int kGrid = 49;
  std::vector<double> grid(kGrid);
  for (int j = 0; j < kGrid; ++j)
    grid[static_cast<size_t>(j)] = kMinEfficiency * std::pow(kMaxEfficiency / kMinEfficiency, j / (kGrid - 1.0));
  grid.back() = kMaxEfficiency;
  size_t at = 0;
  double at_sse = std::numeric_limits<double>::infinity();
  for (size_t j = 0; j < grid.size(); ++j)
    if (const double v = eval(grid[j]); v < at_sse) at_sse = v, at = j;
  double a = grid[at == 0 ? 0 : at - 1], b = grid[std::min(at + 1, grid.size() - 1)];
  const double g = (std::sqrt(5.0) - 1) / 2;
  double x1 = b - g * (b - a), x2 = a + g * (b - a);
  double f1 = eval(x1), f2 = eval(x2);
  for (int it = 0; it < 40; ++it) {  // the bracket shrinks by 0.618^40 ~ 4e-9
    if (f1 < f2) b = x2, x2 = x1, f2 = f1, x1 = b - g * (b - a), f1 = eval(x1);
    else a = x1, x1 = x2, f1 = f2, x2 = a + g * (b - a), f2 = eval(x2);
  }
  return best;
}

}  // namespace

// The eigenvalues of the scaled J^T J by Jacobi rotations.
double condition_index(const std::vector<std::vector<double>>& cols) {
  const size_t k = cols.size();
  std::vector<std::vector<double>> m(k, std::vector<double>(k, 0.0));
  std::vector<double> norm(k, 0.0);
  for (size_t a = 0; a < k; ++a) {
    for (double v : cols[a]) norm[a] += v * v;
    norm[a] = std::sqrt(norm[a]);
    if (!(norm[a] > 0)) return std::numeric_limits<double>::infinity();
  }
  for (size_t a = 0; a < k; ++a)
    for (size_t b = 0; b < k; ++b)
      for (size_t i = 0; i < cols[a].size(); ++i) m[a][b] += cols[a][i] * cols[b][i] / (norm[a] * norm[b]);
  for (int sweep = 0; sweep < 60; ++sweep)
    for (size_t p = 0; p < k; ++p)
      for (size_t q = p + 1; q < k; ++q) {
        if (std::fabs(m[p][q]) < 1e-300) continue;
        const double theta = (m[q][q] - m[p][p]) / (2 * m[p][q]);
        const double t = (theta >= 0 ? 1.0 : -1.0) / (std::fabs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (size_t r = 0; r < k; ++r) {
          const double rp = m[r][p], rq = m[r][q];
          m[r][p] = c * rp - s * rq, m[r][q] = s * rp + c * rq;
        }
        for (size_t r = 0; r < k; ++r) {
          const double pr = m[p][r], qr = m[q][r];
          m[p][r] = c * pr - s * qr, m[q][r] = s * pr + c * qr;
        }
      }
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (size_t a = 0; a < k; ++a) lo = std::min(lo, m[a][a]), hi = std::max(hi, m[a][a]);
  // Below 1e-14 of the largest the smallest eigenvalue is rounding error: dependent columns.
  return lo > 1e-14 * hi ? std::sqrt(hi / lo) : std::numeric_limits<double>::infinity();
}

namespace {

// Columns of the weighted Jacobian at (e, O, L): d t / d e by central differences (one-sided at
// a bound), d t / d O = 1, and, with `launch`, d t / d L = the launch-bound kernel runs.
std::vector<std::vector<double>> jacobian(const StepTerms& terms, const std::vector<double>& sqrt_w, double e,
                                          double overhead_s, double launch_s, bool launch) {
  const double h = 1e-3 * e;
  const double lo = std::max(kMinEfficiency, e - h), hi = std::min(kMaxEfficiency, e + h);
  const std::vector<RowTerms> rl = terms.at(lo), rh = terms.at(hi), r0 = terms.at(e);
  std::vector<std::vector<double>> cols(launch ? 3 : 2);
  for (size_t i = 0; i < sqrt_w.size(); ++i) {
    cols[0].push_back(sqrt_w[i] * (rh[i].step_time(launch_s, overhead_s) - rl[i].step_time(launch_s, overhead_s)) /
                      (hi - lo));
    cols[1].push_back(sqrt_w[i]);
    if (launch) cols[2].push_back(sqrt_w[i] * r0[i].launch_bound_runs(launch_s));
  }
  return cols;
}

}  // namespace

ConstantsFit fit_device_constants(const Case& c, const std::vector<StepMeasurement>& rows, bool keep_launch) {
  std::vector<int64_t> batches;
  std::vector<double> y, w, sqrt_w;
  for (const StepMeasurement& m : rows) {
    batches.push_back(m.batch);
    y.push_back(m.step_time_s);
    w.push_back(1.0 / (m.step_time_s * m.step_time_s));
    sqrt_w.push_back(1.0 / m.step_time_s);
  }
  const StepTerms terms(c, batches);
  const double spec_launch_s = c.hw.runtime.kernel_launch_s;
  ConstantsFit fit;
  bool use_free = false;
  Best free_best;
  if (keep_launch) {
    fit.launch_note = "not fitted (--keep-kernel-launch): kept at the hardware file's " +
                      format_sig(spec_launch_s * 1e6, 4) + " us";
  } else if (terms.launch_batched()) {
    fit.launch_note = "not fitted: with runtime.launch_batching a step pays kernel_launch once, exactly like "
                      "step_overhead; kept at the hardware file's " + format_sig(spec_launch_s * 1e6, 4) + " us";
  } else {
    free_best = search_efficiency(terms, [&](const std::vector<RowTerms>& r) { return fit_launch_overhead(r, y, w); });
    fit.condition_index_all = condition_index(jacobian(terms, sqrt_w, free_best.efficiency,
                                                       free_best.inner.overhead_s, free_best.inner.launch_s, true));
    use_free = fit.condition_index_all <= kCollinear;
    const std::string kept = "kept at the hardware file's " + format_sig(spec_launch_s * 1e6, 4) + " us";
    if (std::isinf(fit.condition_index_all))
      fit.launch_note = "not fitted: at the best fit (kernel_launch " + format_sig(free_best.inner.launch_s * 1e6, 4) +
                        " us) every row has the same launch-bound kernels (or none), so it is the same column as "
                        "step_overhead and the data cannot tell it apart; " + kept;
    else if (!use_free)
      fit.launch_note = "not fitted: its effect is collinear with step_overhead over this sweep (condition index " +
                        format_sig(fit.condition_index_all, 3) + " > 30 with it fitted); " + kept;
    else
      fit.launch_note = "fitted: launch-bound kernels vary over the sweep (condition index " +
                        format_sig(fit.condition_index_all, 3) + " <= 30); it stands for every cost of short "
                        "kernels the model lacks, not only the launch latency (the file's " +
                        format_sig(spec_launch_s * 1e6, 4) + " us)";
  }
  Best best = free_best;
  if (!use_free) {
    best = search_efficiency(terms, [&](const std::vector<RowTerms>& r) { return fixed_launch(r, y, w, spec_launch_s); });
    fit.condition_index = condition_index(jacobian(terms, sqrt_w, best.efficiency, best.inner.overhead_s,
                                                   spec_launch_s, false));
  } else {
    fit.condition_index = fit.condition_index_all;
  }
  fit.compute_efficiency = best.efficiency;
  fit.step_overhead_s = best.inner.overhead_s;
  fit.kernel_launch_s = use_free ? best.inner.launch_s : spec_launch_s;
  fit.fitted[static_cast<int>(FittedConstant::ComputeEfficiency)] = true;
  fit.fitted[static_cast<int>(FittedConstant::StepOverhead)] = true;
  fit.fitted[static_cast<int>(FittedConstant::KernelLaunch)] = use_free;
  if (fit.compute_efficiency <= kMinEfficiency * (1 + 1e-6) || fit.compute_efficiency >= kMaxEfficiency * (1 - 1e-6))
    fit.notes.push_back("compute_efficiency is at a bound of its range [0.01, 1]: the model's compute cannot "
                        "follow these measurements with one factor");
  if (!(fit.condition_index <= kCollinear))
    fit.notes.push_back("compute_efficiency and step_overhead are collinear over this sweep (condition index " +
                        format_sig(fit.condition_index, 3) + " > 30): measure a wider range of batch sizes");
  if (fit.step_overhead_s <= 0)
    fit.notes.push_back("step_overhead is at its bound 0: the model is slower than the measurements even with no "
                        "per-step overhead");
  // The predictions are the model's own, checked against the fit's closed form.
  const HardwareSpec calibrated = terms.with(fit.compute_efficiency, fit.step_overhead_s, fit.kernel_launch_s);
  const std::vector<RowTerms> final_terms = terms.at(fit.compute_efficiency);
  double sq = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    fit.spec_s.push_back(one_device_step_s(c, c.hw, rows[i].batch));
    const double t = one_device_step_s(c, calibrated, rows[i].batch);
    fit.calibrated_s.push_back(t);
    const double closed = final_terms[i].step_time(fit.kernel_launch_s, fit.step_overhead_s);
    if (std::fabs(closed - t) > 1e-9 * t)
      fit.notes.push_back("line " + std::to_string(rows[i].line) + ": the model's step (" + format_sig(t, 6) +
                          " s) differs from the fit's closed form (" + format_sig(closed, 6) +
                          " s): an input-bound step (runtime.input_samples_per_s) is not fitted");
    const double r = (t - y[i]) / y[i];
    sq += r * r;
  }
  fit.rms_relative_error = std::sqrt(sq / static_cast<double>(rows.size()));
  return fit;
}

}  // namespace kp
