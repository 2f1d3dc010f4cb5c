#pragma once
// T_update(M, P) under a fixed layout or the best one (`layout: search`), as an UpdateModel so that
// predictions, studies and reports treat layouts like any other model. Contract: simulate(M, P)
// returns the fixed layout's result (dp = P / (tp pp)), or, searching, the fastest layout that fits
// device memory among tp in powers of two up to a node (dividing the split dimensions), pp in
// powers of two up to the network's cut points, ZeRO 0..3 (0 only when dp = 1), recompute none,
// selective, full (a heavier one only where the lighter does not fit: recomputing never makes a
// step faster) and micro-batches of 1, 2, 4, ... samples (and automatic). When nothing fits, the
// result has fits = false and the smallest footprint found. A point the fixed layout cannot run
// at all (problem() not empty) is infeasible too: fits = false, times zero.
#include <memory>

#include "sim/layout_update.h"

namespace kp {

class LayoutModel : public UpdateModel {
 public:
  // `final`, when given (SystemC), times the layout the search found with `update` (the twin):
  // searching thousands of layouts in SystemC would run each stage's chip model thousands of times.
  LayoutModel(std::shared_ptr<const LayoutUpdate> update, LayoutChoice choice,
              std::shared_ptr<const LayoutUpdate> final = nullptr);
  const char* fidelity() const override { return (m_final ? m_final : m_update)->fidelity(); }
  UpdateResult simulate(int64_t batch, int64_t learners, std::vector<LayerRecord>* layers = nullptr) const override;
  // Why the fixed layout cannot run (M, P) ("" when it can, and always "" when searching).
  std::string problem(int64_t batch, int64_t learners) const;
  // Layouts the search evaluated over all calls (for the benchmark).
  int64_t evaluated() const { return m_evaluated; }
  const LayoutUpdate& layout_update() const { return *m_update; }

 private:
  UpdateResult result_of(const LayoutResult& r) const;
  std::shared_ptr<const LayoutUpdate> m_update, m_final;
  LayoutChoice m_choice;
  mutable int64_t m_evaluated = 0;
};

}  // namespace kp
