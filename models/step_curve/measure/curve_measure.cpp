#include "models/step_curve/measure/curve_measure.h"

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

#include "core/config_error.h"
#include "models/step_curve/measure/curve_journal.h"
#include "models/step_curve/measure/curve_run.h"
#include "models/step_curve/measure/eval_rule.h"
#include "models/step_curve/measure/halton.h"

namespace kp {

const char* to_string(TrialOutcome outcome) {
  switch (outcome) {
    case TrialOutcome::reached: return "reached";
    case TrialOutcome::budget: return "budget";
    case TrialOutcome::diverged: return "diverged";
    case TrialOutcome::pruned: return "pruned";
  }
  return "?";
}

const char* to_string(TrialOrder order) {
  return order == TrialOrder::halton ? "halton" : "effective_lr_desc";
}

int64_t eval_every_of(const CurveSearchSpec& s, int64_t batch) {
  return s.eval_samples > 0 ? eval_every_for(batch, s.eval_samples) : s.base.eval_every;
}

int64_t budget_of(const CurveSearchSpec& s, int64_t batch) {
  if (s.budget_steps <= 0 && s.budget_samples <= 0) return s.base.max_steps;
  const int64_t rule = s.budget_steps + (s.budget_samples + batch - 1) / std::max<int64_t>(batch, 1);
  return std::max<int64_t>(1, std::min(s.base.max_steps, rule));
}

std::vector<int> trial_order(const CurveSearchSpec& s) {
  std::vector<int> order(static_cast<size_t>(std::max(0, s.trials)));
  for (int i = 0; i < s.trials; ++i) order[static_cast<size_t>(i)] = i;
  if (s.order == TrialOrder::effective_lr_desc) {
    // Shallue et al. 2018 find the best trials near the largest stable effective learning rate;
    // diverging trials above it stop within a few steps, so trying the largest first sets a
    // tight bound early and the slow trials below it are pruned at that bound.
    std::vector<double> eff(order.size());
    for (int i = 0; i < s.trials; ++i) {
      const SearchPoint p = search_point(s, i);
      eff[static_cast<size_t>(i)] = p.learning_rate / (1.0 - p.momentum);
    }
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return eff[static_cast<size_t>(a)] > eff[static_cast<size_t>(b)];
    });
  }
  return order;
}

bool TrialRecord::operator==(const TrialRecord& o) const {
  return batch == o.batch && trial == o.trial && learning_rate == o.learning_rate &&
         momentum == o.momentum && steps == o.steps && outcome == o.outcome;
}

SearchPoint search_point(const CurveSearchSpec& s, int trial) {
  auto log_uniform = [](double lo, double hi, double u) {
    return std::exp(std::log(lo) + u * (std::log(hi) - std::log(lo)));
  };
  const uint64_t index = static_cast<uint64_t>(trial) + 1;
  SearchPoint p;
  p.learning_rate = log_uniform(s.lr_min, s.lr_max, halton(index, 0));
  // Plain SGD has no momentum to tune (Shallue et al. tune the learning rate alone there).
  p.momentum = s.base.optimizer.kind == OptimizerKind::Sgd
                   ? 0.0
                   : 1.0 - log_uniform(s.one_minus_momentum_min, s.one_minus_momentum_max,
                                       halton(index, 1));
  return p;
}

void sort_records(std::vector<TrialRecord>& records) {
  std::sort(records.begin(), records.end(), [](const TrialRecord& a, const TrialRecord& b) {
    return a.batch != b.batch ? a.batch < b.batch : a.trial < b.trial;
  });
}

std::string trial_line(const TrialRecord& r) {
  char line[160];
  std::snprintf(line, sizeof line, "batch %6lld trial %3d  lr %-10.4g momentum %-8.4f  %-8s %8s  %.1f s",
                static_cast<long long>(r.batch), r.trial, r.learning_rate, r.momentum, to_string(r.outcome),
                r.steps ? std::to_string(*r.steps).c_str() : "-", r.wall_s);
  return line;
}

std::string join_batches(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

TrialConfig trial_config_of(const CurveSearchSpec& s, int64_t batch, int trial,
                            const SearchPoint& point) {
  TrialConfig c = s.base;
  c.batch = batch;
  c.optimizer.learning_rate = point.learning_rate;
  c.optimizer.momentum = point.momentum;
  c.seed = s.seed + static_cast<uint64_t>(trial);
  c.eval_every = eval_every_of(s, batch);
  c.max_steps = budget_of(s, batch);
  return c;
}

std::string journal_fingerprint(const CurveSearchSpec& s) {
  char buf[640];
  std::snprintf(buf, sizeof buf,
                "v2 numerics=%d target=%.9g max_steps=%lld eval_every=%lld seed=%llu lr=[%.9g,%.9g] "
                "one_minus_momentum=[%.9g,%.9g] optimizer=%d weight_decay=%.9g prune=%d "
                "eval_samples=%lld budget=%lld+%lld/M order=%s",
                kTrainerNumerics, s.base.target_error, static_cast<long long>(s.base.max_steps),
                static_cast<long long>(s.base.eval_every), static_cast<unsigned long long>(s.seed),
                s.lr_min, s.lr_max, s.one_minus_momentum_min, s.one_minus_momentum_max,
                static_cast<int>(s.base.optimizer.kind), s.base.optimizer.weight_decay,
                s.prune ? 1 : 0, static_cast<long long>(s.eval_samples),
                static_cast<long long>(s.budget_steps), static_cast<long long>(s.budget_samples),
                to_string(s.order));
  std::string fp = buf;
  // The reference step rounds otherwise than the fast path (whose journals keep their old
  // fingerprint); the Adam family's hyper-parameters matter only to it.
  if (resolve_step_path(s.base.path) == StepPath::Reference) fp += " path=reference";
  const OptimizerSpec& o = s.base.optimizer;
  if (is_adam_family(o.kind)) {
    std::snprintf(buf, sizeof buf, " betas=%.9g,%.9g eps=%.9g", o.beta1, o.beta2, o.epsilon);
    fp += buf;
  }
  return fp;
}


std::vector<TrialRecord> measure_curve(const ResolvedNetwork& net, const Dataset& data,
                                       const CurveSearchSpec& spec,
                                       const std::string& journal_path, bool resume,
                                       const std::function<void(const TrialRecord&)>& on_trial) {
  std::unique_ptr<CurveJournal> journal;
  if (!journal_path.empty())
    journal = std::make_unique<CurveJournal>(journal_path, journal_fingerprint(spec), resume);
  CurveRun run(net, data, spec, journal.get(), on_trial);
  return run.run();
}

std::vector<std::pair<int64_t, double>> steps_to_target(const std::vector<TrialRecord>& records) {
  std::map<int64_t, double> best;
  for (const TrialRecord& r : records) {
    auto it = best.emplace(r.batch, std::numeric_limits<double>::infinity()).first;
    if (r.steps) it->second = std::min(it->second, static_cast<double>(*r.steps));
  }
  return {best.begin(), best.end()};
}

std::string format_curve_csv(const std::vector<TrialRecord>& records, const std::string& comment) {
  std::ostringstream out;
  std::istringstream lines(comment);
  for (std::string line; std::getline(lines, line);) out << "# " << line << "\n";
  out << "batch,steps,trial,learning_rate,momentum,outcome,wall_s\n";
  for (const TrialRecord& r : records) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%lld,%s,%d,%.9g,%.9g,%s,%.3f\n",
                  static_cast<long long>(r.batch),
                  r.steps ? std::to_string(*r.steps).c_str() : "inf", r.trial, r.learning_rate,
                  r.momentum, to_string(r.outcome), r.wall_s);
    out << buf;
  }
  return out.str();
}

}  // namespace kp
