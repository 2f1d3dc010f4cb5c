// The layout model's two fidelities: the same composition (sim/layout_update.h) over SystemC chip
// runs and SystemC collectives agrees with the analytic twin, as the data-parallel update does
// (systemc_update_test.cpp: within 2%), and the tensor-parallel all-reduces inside one node, where
// no link carries two transfers, match their closed form.
#include <gtest/gtest.h>

#include <memory>

#include "core/config_doc.h"
#include "sim/analytic/layout_timer_analytic.h"
#include "sim/layout_update.h"
#include "sim/systemc/layout_timer_sc.h"
#include "tests/sim/layout_fixture.h"

namespace kp {
namespace {

TEST(LayoutTwinVsSystemc, PipelineTensorAndShardedLayoutsAgree) {
  const HardwareSpec hw = parse_hardware(ConfigDoc::load(std::string(KP_SOURCE_DIR) + "/hw_configs/h100_cluster.yaml"));
  const LoweredStep step = layout_fixture::tiny_decoder();
  const int64_t bpe = hw.array.bytes_per_element;
  const LayoutUpdate twin(hw, step, bpe, std::make_shared<AnalyticStageTimer>(hw, bpe));
  const LayoutUpdate sc(hw, step, bpe, std::make_shared<SystemcStageTimer>(hw, bpe));
  struct Case {
    int64_t dp, tp, pp;
    int zero;
    int64_t micro;
  };
  for (const Case& c : {Case{2, 2, 2, 0, 2}, Case{8, 1, 1, 2, 0}, Case{1, 4, 2, 0, 1}, Case{16, 1, 1, 3, 0}}) {
    Layout l;
    l.dp = c.dp, l.tp = c.tp, l.pp = c.pp, l.zero = c.zero, l.micro_batch = c.micro;
    const LayoutResult a = twin.simulate(16 * c.dp, l), s = sc.simulate(16 * c.dp, l);
    const UpdateBreakdown &ba = a.update.breakdown, &bs = s.update.breakdown;
    EXPECT_NEAR(bs.t_update_s, ba.t_update_s, 0.02 * ba.t_update_s) << l.text();
    EXPECT_NEAR(bs.tp_comm_s, ba.tp_comm_s, 1e-6 * ba.tp_comm_s + 1e-12) << l.text();
    EXPECT_EQ(a.micro_batches, s.micro_batches);
    EXPECT_DOUBLE_EQ(a.footprint.total_bytes(), s.footprint.total_bytes());
  }
}

}  // namespace
}  // namespace kp

namespace kp {
namespace {

// Stage-to-stage transfers on the SystemC network: one sender's transfer is the closed form
// exactly (device link, NIC up, NIC down, device link, cut-through); eight senders of a node take
// turns on its NIC, which the closed form charges as eight transfers' bytes.
TEST(LayoutTwinVsSystemc, PointToPointTransfersMatchTheirClosedForm) {
  const HardwareSpec hw = parse_hardware(ConfigDoc::load(std::string(KP_SOURCE_DIR) + "/hw_configs/h100_cluster.yaml"));
  const SystemcStageTimer sc(hw, 2);
  const InterconnectSpec& ic = hw.interconnect;
  for (double bytes : {4096.0, 25e6}) {
    EXPECT_NEAR(sc.p2p_s(ic, 1, bytes, true), p2p_closed_form_s(ic, 1, bytes, true), 1e-9 * p2p_closed_form_s(ic, 1, bytes, true));
    EXPECT_NEAR(sc.p2p_s(ic, 1, bytes, false), p2p_closed_form_s(ic, 1, bytes, false), 1e-9 * p2p_closed_form_s(ic, 1, bytes, false));
    const double a = p2p_closed_form_s(ic, 8, bytes, true), s = sc.p2p_s(ic, 8, bytes, true);
    EXPECT_NEAR(s, a, 0.05 * a) << bytes;
  }
}

}  // namespace
}  // namespace kp
