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
  p.momentum = 1.0 - log_uniform(s.one_minus_momentum_min, s.one_minus_momentum_max, halton(index, 1));
  return p;
}

std::string journal_fingerprint(const CurveSearchSpec& s) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "v1 target=%.9g max_steps=%lld eval_every=%lld seed=%llu lr=[%.9g,%.9g] "
                "one_minus_momentum=[%.9g,%.9g] optimizer=%d weight_decay=%.9g prune=%d",
                s.base.target_error, static_cast<long long>(s.base.max_steps),
                static_cast<long long>(s.base.eval_every), static_cast<unsigned long long>(s.seed),
                s.lr_min, s.lr_max, s.one_minus_momentum_min, s.one_minus_momentum_max,
                static_cast<int>(s.base.optimizer.kind), s.base.optimizer.weight_decay,
                s.prune ? 1 : 0);
  return buf;
}

namespace {

// The scheduler state, guarded by m_mutex: per batch size, the trials done and whether one runs.
class CurveRun {
 public:
  CurveRun(const ResolvedNetwork& net, const Dataset& data, const CurveSearchSpec& spec,
           CurveJournal* journal, const std::function<void(const TrialRecord&)>& on_trial)
      : m_net(net), m_data(data), m_spec(spec), m_journal(journal), m_on_trial(on_trial),
        m_done(spec.batches.size(), std::vector<std::optional<TrialRecord>>(spec.trials)),
        m_running(spec.batches.size(), false) {
    if (journal)
      for (const TrialRecord& r : journal->records())
        for (size_t b = 0; b < spec.batches.size(); ++b)
          if (spec.batches[b] == r.batch && r.trial >= 0 && r.trial < spec.trials)
            m_done[b][r.trial] = r;
  }

  void run() {
    const int jobs = std::max(1, m_spec.jobs);
    std::vector<std::thread> workers;
    for (int j = 0; j < jobs; ++j) workers.emplace_back([this] { work(); });
    for (std::thread& t : workers) t.join();
    if (m_error) std::rethrow_exception(m_error);
  }

  std::vector<TrialRecord> records() const {
    std::vector<TrialRecord> out;
    for (const auto& per_batch : m_done)
      for (const auto& r : per_batch)
        if (r) out.push_back(*r);
    std::sort(out.begin(), out.end(), [](const TrialRecord& a, const TrialRecord& b) {
      return a.batch != b.batch ? a.batch < b.batch : a.trial < b.trial;
    });
    return out;
  }

 private:
  int next_trial(size_t b) const {
    for (int i = 0; i < m_spec.trials; ++i)
      if (!m_done[b][i]) return i;
    return m_spec.trials;
  }

  // The bound of trial i: the best of trials 0..i-1 (all done: a batch size is a chain).
  int64_t bound(size_t b, int i) const {
    int64_t best = 0;
    for (int j = 0; j < i; ++j)
      if (m_done[b][j] && m_done[b][j]->steps && (best == 0 || *m_done[b][j]->steps < best))
        best = *m_done[b][j]->steps;
    return m_spec.prune ? best : 0;
  }

  // Under the lock: the ready batch size whose next trial has the lowest index (ties: list order),
  // so the cheap early trials that set the bounds run first. -1 = none ready now.
  int pick(bool& all_done) const {
    int best_b = -1, best_i = m_spec.trials;
    all_done = true;
    for (size_t b = 0; b < m_spec.batches.size(); ++b) {
      const int i = next_trial(b);
      if (i < m_spec.trials || m_running[b]) all_done = false;
      if (!m_running[b] && i < best_i) best_b = static_cast<int>(b), best_i = i;
    }
    return best_b;
  }

  void work() {
    std::unique_lock<std::mutex> lock(m_mutex);
    for (;;) {
      bool all_done = false;
      const int b = m_error ? -1 : pick(all_done);
      if (m_error || (b < 0 && all_done)) return;
      if (b < 0) {
        m_cv.wait(lock);
        continue;
      }
      const int i = next_trial(b);
      const int64_t stop_after = bound(b, i);
      m_running[b] = true;
      lock.unlock();
      TrialRecord rec;
      std::exception_ptr error;
      try {
        rec = run_trial(m_spec.batches[b], i, stop_after);
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      m_running[b] = false;
      try {
        if (error) std::rethrow_exception(error);
        if (m_journal) m_journal->append(rec);
        m_done[b][i] = rec;
        if (m_on_trial) m_on_trial(rec);
      } catch (...) {
        if (!m_error) m_error = std::current_exception();
      }
      m_cv.notify_all();
    }
  }

  TrialRecord run_trial(int64_t batch, int trial, int64_t stop_after) const {
    const SearchPoint p = search_point(m_spec, trial);
    TrialConfig c = m_spec.base;
    c.batch = batch;
    c.optimizer.learning_rate = p.learning_rate;
    c.optimizer.momentum = p.momentum;
    c.seed = m_spec.seed + static_cast<uint64_t>(trial);
    const TrialResult r = train_trial(m_net, m_data, c, stop_after);
    TrialRecord rec;
    rec.batch = batch;
    rec.trial = trial;
    rec.learning_rate = p.learning_rate;
    rec.momentum = p.momentum;
    rec.wall_s = r.wall_time_s;
    if (r.steps_to_target) {
      rec.steps = *r.steps_to_target;
      rec.outcome = TrialOutcome::reached;
    } else if (r.diverged) {
      rec.outcome = TrialOutcome::diverged;
    } else if (stop_after > 0 && stop_after < c.max_steps) {
      rec.outcome = TrialOutcome::pruned;
    } else {
      rec.outcome = TrialOutcome::budget;
    }
    return rec;
  }

  const ResolvedNetwork& m_net;
  const Dataset& m_data;
  const CurveSearchSpec& m_spec;
  CurveJournal* m_journal;
  const std::function<void(const TrialRecord&)>& m_on_trial;
  std::vector<std::vector<std::optional<TrialRecord>>> m_done;
  std::vector<bool> m_running;
  std::mutex m_mutex;
  std::condition_variable m_cv;
  std::exception_ptr m_error;
};

}  // namespace

std::vector<TrialRecord> measure_curve(const ResolvedNetwork& net, const Dataset& data,
                                       const CurveSearchSpec& spec,
                                       const std::string& journal_path, bool resume,
                                       const std::function<void(const TrialRecord&)>& on_trial) {
  std::unique_ptr<CurveJournal> journal;
  if (!journal_path.empty())
    journal = std::make_unique<CurveJournal>(journal_path, journal_fingerprint(spec), resume);
  CurveRun run(net, data, spec, journal.get(), on_trial);
  run.run();
  return run.records();
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
