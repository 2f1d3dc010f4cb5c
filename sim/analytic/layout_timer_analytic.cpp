#include "sim/analytic/layout_timer_analytic.h"

#include "sim/analytic/collective_analytic.h"

namespace kp {

AnalyticStageTimer::AnalyticStageTimer(const HardwareSpec& hw, const Precision& precision)
    : m_hw(hw), m_chip(hw, precision), m_bytes(precision.bytes.gradients) {}

StepProfile AnalyticStageTimer::profile(const LoweredStep& stage, int64_t micro) const {
  StepProfileBuilder builder(stage, m_hw.interconnect.bucket_bytes, m_hw.interconnect.first_bucket_bytes, m_bytes,
                             micro, nullptr);
  builder.set_kernel_launch_s(m_hw.runtime.launch_batching ? 0.0 : m_hw.runtime.kernel_launch_s);
  for (const Op& op : stage.ops) builder.add(op, m_chip.cost(op, micro));
  return builder.done();
}

double AnalyticStageTimer::allreduce_s(const InterconnectSpec& ic, int64_t learners, double bytes) const {
  return kp::allreduce_s(ic, learners, bytes);
}

double AnalyticStageTimer::p2p_s(const InterconnectSpec& ic, int64_t senders, double bytes, bool across) const {
  return p2p_closed_form_s(ic, senders, bytes, across);
}

double AnalyticStageTimer::group_allreduce_s(const InterconnectSpec& ic, int64_t members, int64_t tp,
                                             double bytes) const {
  return kp::allreduce_s(dp_group_interconnect(ic, tp, members), members, bytes);
}

}  // namespace kp
