#pragma once
// The SystemC StageTimer (sim/layout_update.h): each stage's ops run on the SystemC chip
// (SystemcUpdate, one forked run per stage and micro-batch) and each distinct collective on the
// SystemC interconnect (run_net_sc_forked), memoised by its size, since a step repeats the same
// all-reduce many times.
#include <map>
#include <mutex>
#include <tuple>

#include "sim/layout_update.h"
#include "sim/systemc/net/net_runner.h"

namespace kp {

class SystemcStageTimer : public StageTimer {
 public:
  SystemcStageTimer(const HardwareSpec& hw, const Precision& precision);
  const char* fidelity() const override { return "systemc"; }
  StepProfile profile(const LoweredStep& stage, int64_t micro) const override;
  double allreduce_s(const InterconnectSpec& ic, int64_t learners, double bytes) const override;
  double group_allreduce_s(const InterconnectSpec& ic, int64_t members, int64_t tp, double bytes) const override;
  double p2p_s(const InterconnectSpec& ic, int64_t senders, double bytes, bool across_nodes) const override;

 private:
  HardwareSpec m_hw;
  Precision m_precision;
  mutable std::mutex m_mutex;
  // The seconds of `job` on the SystemC interconnect, run once per distinct job.
  double run(const NetJob& job) const;
  mutable std::map<std::tuple<int, int, bool, int64_t, int64_t, int64_t, double, double, double>, double> m_collectives;
};

}  // namespace kp
