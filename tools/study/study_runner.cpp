#include "tools/study/study_runner.h"

#include <chrono>

#include "tools/study/case_loader.h"

namespace kp {

StudyResult run_study(const StudySpec& spec, std::FILE* progress) {
  StudyResult out;
  out.spec = spec;
  const auto t0 = std::chrono::steady_clock::now();
  size_t index = 0;
  for (const std::string& hw_file : spec.hardware) {
    ++index;
    const Case c = load_case(hw_file, spec.workload);
    out.workload_name = c.workload.name;
    out.law = c.law;
    out.params = c.step.params;
    const auto model = make_update_model(c, "analytic");
    PredictOptions opt;
    opt.batches = spec.batches;
    opt.learners = learners_allowed(c.hw, spec.learners);
    opt.knee_threshold = spec.knee_threshold;
    opt.weak_per_learner_batch = spec.weak_per_learner_batch;
    SystemResult r;
    r.name = c.hw.name;
    r.file = hw_file;
    r.max_learners = c.hw.interconnect.max_learners;
    r.cost_per_chip_hour_usd = c.hw.cost_per_chip_hour_usd;
    r.prediction = predict(*model, c.law, c.hw, opt);
    if (progress) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::fprintf(progress, "[%zu/%zu] %-24s %6zu points  %.2f s elapsed\n", index, spec.hardware.size(),
                   r.name.c_str(), r.prediction.points.size(), s);
      std::fflush(progress);
    }
    out.systems.push_back(std::move(r));
  }
  return out;
}

}  // namespace kp
