#pragma once
// The analytic twin's StageTimer (sim/layout_update.h): ops timed by ChipAnalytic, collectives by
// the closed forms of collective_analytic.h.
#include "sim/analytic/chip_analytic.h"
#include "sim/layout_update.h"

namespace kp {

class AnalyticStageTimer : public StageTimer {
 public:
  AnalyticStageTimer(const HardwareSpec& hw, const Precision& precision);
  const char* fidelity() const override { return "analytic"; }
  StepProfile profile(const LoweredStep& stage, int64_t micro) const override;
  double allreduce_s(const InterconnectSpec& ic, int64_t learners, double bytes) const override;
  double group_allreduce_s(const InterconnectSpec& ic, int64_t members, int64_t tp, double bytes) const override;
  double p2p_s(const InterconnectSpec& ic, int64_t senders, double bytes, bool across_nodes) const override;

 private:
  HardwareSpec m_hw;
  ChipAnalytic m_chip;
  int64_t m_bytes;
};

}  // namespace kp
