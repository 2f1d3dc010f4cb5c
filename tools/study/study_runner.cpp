#include "tools/study/study_runner.h"

#include <chrono>

#include "tools/study/design_eval.h"
#include "tools/study/study_select.h"

namespace kp {

void verify_top(const DesignEvaluator& eval, StudyResult& r) {
  if (r.spec.verify_top <= 0) return;
  for (SystemResult& s : r.systems) {
    if (s.rank < 1 || s.rank > r.spec.verify_top) continue;
    s.verify.systemc = eval.evaluate_at(s.index, s.chosen.batch, s.chosen.learners, "systemc");
    s.verify.t_update_rel_diff = (s.verify.systemc.t_update_s - s.chosen.t_update_s) / s.chosen.t_update_s;
    s.verify.done = true;
  }
}

StudyResult run_study(const StudySpec& spec, std::FILE* progress) {
  StudyResult out;
  out.spec = spec;
  const DesignEvaluator eval(out.spec);
  out.workloads = eval.workloads();
  const auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < eval.count(); ++i) {
    out.systems.push_back(eval.evaluate(i));
    const SystemResult& r = out.systems.back();
    if (progress) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::fprintf(progress, "[%zu/%zu] %-24s %6zu points  %.2f s elapsed\n", i + 1, eval.count(), r.name.c_str(),
                   r.prediction.points.size(), s);
      std::fflush(progress);
    }
  }
  rank_designs(out);
  verify_top(eval, out);
  return out;
}

}  // namespace kp
