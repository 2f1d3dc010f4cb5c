#pragma once
// Where an axis ticks and what its tick texts say. Contract: pure functions, deterministic.
#include <string>
#include <vector>

namespace kp {

// "%.3g" without exponent noise for the numbers a reader meets on a tick: 16, 4096, 0.25, 1e+06.
std::string tick_text(double v);

// The texts of one axis's ticks in one notation: when any tick needs an exponent (below 1e-3 or
// from 1e6 up), every non-zero tick gets one ("5e-05 ... 1e-02", not "5e-05 ... 0.01"), so that
// neighbours read alike and compare at a glance.
std::vector<std::string> tick_texts(const std::vector<double>& values);

// Log axes tick at 1, 2, 5 x 10^k when they span under three decades and at powers of ten
// otherwise; linear axes at a 1-2-5 step giving about six ticks. The plot thins them further
// when their texts would touch (see thin_ticks).
std::vector<double> auto_ticks(double lo, double hi, bool log);

}  // namespace kp
