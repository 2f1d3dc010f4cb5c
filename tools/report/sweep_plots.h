#pragma once
// The design-space plots of a study with sweeps. Contract: deterministic, from the study result
// only. A swept key is plotted when every one of its values is a number with one common unit
// ("128", "32 MiB"); a key of names (a dataflow) is listed as not plotted. "Best design per value"
// is the design of best rank (the study's first objective) among the feasible designs that have
// that value, one line per (hardware file, workload), so the other swept keys are at their best.
#include <string>
#include <vector>

#include "tools/study/study_result.h"

namespace kp {

struct SweptAxis {
  std::string key;                 // dotted, as swept
  std::string unit;                // common unit of the values ("" for plain numbers)
  std::vector<double> values;      // per system (by index), NaN where the system lacks the key
  bool numeric = false;
};

// Every swept key of the study, in first-seen order.
std::vector<SweptAxis> swept_axes(const StudyResult& r);

// For one numeric axis: time, energy, cost (and die area when modelled) of the best design per
// value, each an <svg>, the best value of each objective labelled.
std::vector<std::string> plot_objectives_against(const StudyResult& r, const SweptAxis& axis);

// Heat map of the first objective of the best design per (a, b) value pair, one per workload.
std::string plot_sweep_heatmap(const StudyResult& r, size_t workload, const SweptAxis& a, const SweptAxis& b);

// One sentence per numeric swept key and workload: the value of the best design and whether it is
// the largest feasible one ("Best by cost at rows = 192, below the largest feasible value (224)."),
// "" without sweeps.
std::string sweep_optimum_text(const StudyResult& r);

// The HTML section: the plots above for every numeric axis and, for the first two axes whose
// values vary independently (not zipped), the heat map; "" for a study without sweeps.
std::string sweep_section(const StudyResult& r);

}  // namespace kp
