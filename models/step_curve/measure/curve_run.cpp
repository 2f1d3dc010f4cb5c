#include "models/step_curve/measure/curve_run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <thread>

#include "models/step_curve/measure/curve_journal.h"

namespace kp {
namespace {

constexpr int64_t k_unbounded = std::numeric_limits<int64_t>::max();

}  // namespace

CurveRun::CurveRun(const ResolvedNetwork& net, const Dataset& data, const CurveSearchSpec& spec,
                   CurveJournal* journal, const std::function<void(const TrialRecord&)>& on_trial)
    : m_net(net), m_data(data), m_spec(spec), m_journal(journal), m_on_trial(on_trial),
      m_order(trial_order(spec)),
      m_slots(spec.batches.size(), std::vector<Slot>(m_order.size())),
      m_bounds(new std::atomic<int64_t>[spec.batches.size() * m_order.size()]) {
  std::vector<int> position(m_order.size());
  for (size_t p = 0; p < m_order.size(); ++p) position[static_cast<size_t>(m_order[p])] = static_cast<int>(p);
  if (journal)
    for (const TrialRecord& r : journal->records())
      for (size_t b = 0; b < spec.batches.size(); ++b)
        if (spec.batches[b] == r.batch && r.trial >= 0 && r.trial < spec.trials) {
          Slot& s = m_slots[b][static_cast<size_t>(position[static_cast<size_t>(r.trial)])];
          s.record = r;
          s.started = true;
        }
  for (size_t i = 0; i < spec.batches.size() * m_order.size(); ++i) m_bounds[i] = k_unbounded;
}

std::vector<TrialRecord> CurveRun::run() {
  const int jobs = std::max(1, m_spec.jobs);
  std::vector<std::thread> workers;
  for (int j = 0; j < jobs; ++j) workers.emplace_back([this] { work(); });
  for (std::thread& t : workers) t.join();
  if (m_error) std::rethrow_exception(m_error);
  std::vector<TrialRecord> out;
  for (const auto& chain : m_slots)
    for (const Slot& s : chain)
      if (s.record) out.push_back(*s.record);
  sort_records(out);
  return out;
}

// Under the lock: the lowest unstarted position of the largest batch that has one.
bool CurveRun::pick(size_t& best_b, int& best_pos) const {
  bool found = false;
  for (size_t b = 0; b < m_slots.size(); ++b) {
    if (found && m_spec.batches[b] <= m_spec.batches[best_b]) continue;
    for (size_t p = 0; p < m_slots[b].size(); ++p)
      if (!m_slots[b][p].started) {
        best_b = b, best_pos = static_cast<int>(p), found = true;
        break;
      }
  }
  return found;
}

// Under the lock: the best steps-to-target among the finished positions before pos.
int64_t CurveRun::live_bound(size_t b, int pos) const {
  if (!m_spec.prune) return k_unbounded;
  int64_t best = k_unbounded;
  for (int q = 0; q < pos; ++q) {
    const Slot& s = m_slots[b][static_cast<size_t>(q)];
    if (s.record && s.record->steps) best = std::min(best, *s.record->steps);
    if (s.raw && s.raw->reached) best = std::min(best, *s.raw->reached);
  }
  return best;
}

void CurveRun::update_live_bounds(size_t b) {
  for (size_t p = 0; p < m_slots[b].size(); ++p)
    if (m_slots[b][p].started && !m_slots[b][p].record && !m_slots[b][p].raw)
      bound_of(b, static_cast<int>(p)).store(live_bound(b, static_cast<int>(p)));
}

// Under the lock: finalises, in chain order, every finished trial whose predecessors are final.
void CurveRun::finalise(size_t b) {
  auto& chain = m_slots[b];
  for (size_t p = 0; p < chain.size(); ++p) {
    Slot& s = chain[p];
    if (s.record) continue;
    if (!s.raw) return;
    const int64_t budget = budget_of(m_spec, m_spec.batches[b]);
    const int64_t best = live_bound(b, static_cast<int>(p));  // all earlier are final: B_p
    const int64_t bound = std::min(best, budget);
    TrialRecord r;
    r.batch = m_spec.batches[b];
    r.trial = m_order[p];
    const SearchPoint sp = search_point(m_spec, r.trial);
    r.learning_rate = sp.learning_rate;
    r.momentum = sp.momentum;
    r.wall_s = s.raw->wall_s;
    if (s.raw->reached && *s.raw->reached <= bound) {
      r.steps = *s.raw->reached;
      r.outcome = TrialOutcome::reached;
    } else if (s.raw->diverged && *s.raw->diverged <= bound) {
      r.outcome = TrialOutcome::diverged;
    } else {
      r.outcome = bound < budget ? TrialOutcome::pruned : TrialOutcome::budget;
    }
    if (m_journal) m_journal->append(r);
    s.record = r;
    s.raw.reset();
    if (m_on_trial) m_on_trial(r);
  }
}

void CurveRun::work() {
  std::unique_lock<std::mutex> lock(m_mutex);
  while (!m_error) {
    size_t b = 0;
    int pos = 0;
    if (!pick(b, pos)) return;
    m_slots[b][static_cast<size_t>(pos)].started = true;
    std::atomic<int64_t>& bound = bound_of(b, pos);
    bound.store(live_bound(b, pos));
    lock.unlock();
    Raw raw;
    std::exception_ptr error;
    try {
      raw = run_trial(b, m_order[static_cast<size_t>(pos)], bound);
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    try {
      if (error) std::rethrow_exception(error);
      m_slots[b][static_cast<size_t>(pos)].raw = raw;
      update_live_bounds(b);
      finalise(b);
    } catch (...) {
      if (!m_error) m_error = std::current_exception();
    }
  }
}

// One trial, stopped at the live bound (re-read every step). The evaluation schedule (multiples
// of K, and the budget step) is that of train_trial() and does not depend on the bound.
CurveRun::Raw CurveRun::run_trial(size_t b, int trial, const std::atomic<int64_t>& bound) const {
  const auto t0 = std::chrono::steady_clock::now();
  const int64_t batch = m_spec.batches[b];
  const SearchPoint p = search_point(m_spec, trial);
  const TrialConfig c = trial_config_of(m_spec, batch, trial, p);
  Trainer trainer(m_net, m_data, c);
  Raw raw;
  for (int64_t step = 0; step < c.max_steps && step < bound.load(std::memory_order_relaxed);) {
    const double loss = trainer.step();
    ++step;
    if (!std::isfinite(loss) || loss > c.divergence_loss) {
      raw.diverged = step;
      break;
    }
    if (step % c.eval_every == 0 || step == c.max_steps) {
      if (trainer.error_at_most(m_data.validation, c.target_error)) {
        raw.reached = step;
        break;
      }
    }
  }
  raw.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return raw;
}

}  // namespace kp
