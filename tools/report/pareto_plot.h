#pragma once
// The Pareto plot: every design point of a study as total time to target against cost or energy,
// the designs the study flagged Pareto-optimal highlighted. Contract: renders the given numbers
// only (the flags come from the study); log axes when a coordinate spans a decade or more;
// designs with a non-finite or non-positive coordinate are left out and counted in the title.
#include <string>
#include <vector>

namespace kp {

struct DesignMark {
  std::string label;        // the design's name (hover title; labels on the front)
  double time_s = 0;        // total time to target at the design's chosen point
  double cost_usd = 0;      // cost of that training run
  double energy_j = 0;      // energy of that training run
  bool pareto = false;      // on the study's Pareto front (over the study's objectives)
};

enum class ParetoCost { usd, joules };

// Also draws the staircase of the designs no other shown design beats on both plotted axes,
// so a reader sees the trade-off in this projection.
std::string plot_pareto(const std::vector<DesignMark>& designs, ParetoCost y);

// Indices of `designs` not dominated on (time, y) by another design (ties kept), ordered by time.
std::vector<size_t> front_2d(const std::vector<DesignMark>& designs, ParetoCost y);

}  // namespace kp
