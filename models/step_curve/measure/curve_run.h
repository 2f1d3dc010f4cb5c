#pragma once
// The scheduler of measure_curve() (curve_measure.h): worker threads, one trial each, over the
// chains of trials of every batch size.
//
// Trials of one chain may run at the same time without changing any record. The trial at
// position p of its chain is recorded as if it had run with the bound B_p = min steps of positions
// 0..p-1. B_p = the minimum of the unbounded steps-to-target of positions < p (the earliest
// minimum is never pruned: its own bound is >= it), so while some earlier trials still run, the
// minimum over the finished ones is a live bound L >= B_p: the trial stops at L, and once every
// earlier position has finished its record is finalised at B_p (reached iff it reached the target
// at <= B_p steps, diverged iff it diverged at <= B_p, else pruned or out of budget). Evaluations
// fall on multiples of K and on the budget step, never on L, so the finalised record is exactly
// the one a sequential run gives. Records are journaled (and reported) in chain order as they are
// finalised.
//
// Scheduling: a free worker takes the lowest unstarted position of the chain with the largest
// batch (longest processing time first); several workers share a chain when it is the largest
// with work left, so one expensive chain is not the critical path.
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "models/step_curve/measure/curve_measure.h"

namespace kp {

class CurveJournal;

class CurveRun {
 public:
  CurveRun(const ResolvedNetwork& net, const Dataset& data, const CurveSearchSpec& spec,
           CurveJournal* journal, const std::function<void(const TrialRecord&)>& on_trial);
  // Runs every trial not in the journal; returns all records sorted by (batch, trial).
  std::vector<TrialRecord> run();

 private:
  struct Raw {  // what an (early-stopped) trial saw: steps are of its unbounded trajectory
    std::optional<int64_t> reached, diverged;
    double wall_s = 0;
  };
  struct Slot {
    std::optional<TrialRecord> record;  // finalised
    std::optional<Raw> raw;             // finished, waiting for earlier positions
    bool started = false;
  };

  void work();
  bool pick(size_t& b, int& pos) const;
  int64_t live_bound(size_t b, int pos) const;
  void update_live_bounds(size_t b);
  void finalise(size_t b);
  Raw run_trial(size_t b, int trial, const std::atomic<int64_t>& bound) const;
  std::atomic<int64_t>& bound_of(size_t b, int pos) { return m_bounds[b * m_order.size() + pos]; }

  const ResolvedNetwork& m_net;
  const Dataset& m_data;
  const CurveSearchSpec& m_spec;
  CurveJournal* m_journal;
  const std::function<void(const TrialRecord&)>& m_on_trial;
  std::vector<int> m_order;                // position -> trial index
  std::vector<std::vector<Slot>> m_slots;  // [batch][position]
  std::unique_ptr<std::atomic<int64_t>[]> m_bounds;  // live bound of [batch][position]
  std::mutex m_mutex;
  std::exception_ptr m_error;
};

}  // namespace kp
