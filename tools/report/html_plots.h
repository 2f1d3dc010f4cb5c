#pragma once
// The plots of the HTML report, each one inline <svg> built with SvgPlot. Contract: every function
// returns a complete <svg> element (deterministic text), with units on both axes and log axes where
// the data spans decades; a plot whose data is empty still returns its axes.
#include <string>

#include "tools/study/study_runner.h"

namespace kp {

// A workload's N(M) = n_inf + alpha/M over the batch grid (log-log), with B_crit and the n_inf
// plateau marked.
std::string plot_step_curve(const WorkloadResult& w, const std::vector<int64_t>& batches);
// Heat map of log10 total time over (M, P) with the best M for each P drawn as a path.
std::string plot_heatmap(const SystemResult& s);
// Strong-scaling speed-up vs P for the given designs, ideal line, knees marked.
std::string plot_speedup(const StudyResult& r, const std::vector<size_t>& designs);
// Total time vs P for the given designs: strong scaling (best M per P, solid) and weak scaling
// (fixed M/P, dashed).
std::string plot_strong_weak(const StudyResult& r, const std::vector<size_t>& designs);

}  // namespace kp
