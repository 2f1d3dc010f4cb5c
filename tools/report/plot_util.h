#pragma once
// Helpers shared by the report's plots: data ranges for log axes, grid cell edges, tick sets and
// the colour scales. Contract: pure functions, deterministic output.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace kp {

// printf-style formatting of one number.
std::string fmt(const char* format, double v);

// The positive, finite range of some values (what a log axis can show).
struct Range {
  double lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity();
  void add(double v);
  bool empty() const { return !(hi >= lo); }
  // Widened by a fraction of a decade on each side so markers at the ends stay inside the frame.
  Range padded_log(double decades = 0.08) const;
};

std::vector<int64_t> sorted_unique(std::vector<int64_t> v);

// Cell edges of a sorted grid on a log axis: geometric midpoints, the ends mirrored.
std::vector<double> log_edges(const std::vector<int64_t>& grid);

// `text` cut to `fits` characters by dropping its middle (swept names differ at their ends).
std::string middle_cut(const std::string& text, size_t fits);

// "1 chip", "64 chips".
std::string chips_text(int64_t n);

// Powers of two in [lo, hi], thinned to every 2nd, 4th, ... value so at most `max_ticks` remain
// (a chip or batch grid of powers of two reads better on its own values than on decades).
// Empty when the range holds fewer than three powers of two.
std::vector<double> pow2_ticks(double lo, double hi, size_t max_ticks);

// Viridis (perceptually ordered, readable in grey) at t in [0, 1].
std::string viridis(double t);

// The colour of system i in every multi-system plot.
const char* series_color(size_t i);

}  // namespace kp
