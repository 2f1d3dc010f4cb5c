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
#include "sim/systemc/net/net_runner.h"
#include "tests/legacy_precision.h"
#include "tests/sim/layout_fixture.h"

namespace kp {
namespace {

TEST(LayoutTwinVsSystemc, PipelineTensorAndShardedLayoutsAgree) {
  const HardwareSpec hw = parse_hardware(ConfigDoc::load(std::string(KP_SOURCE_DIR) + "/hw_configs/h100_cluster.yaml"));
  const LoweredStep step = layout_fixture::tiny_decoder();
  const Precision bf16 = legacy_precision(hw);
  const LayoutUpdate twin(hw, step, bf16.bytes, std::make_shared<AnalyticStageTimer>(hw, bf16));
  const LayoutUpdate sc(hw, step, bf16.bytes, std::make_shared<SystemcStageTimer>(hw, bf16));
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
  const SystemcStageTimer sc(hw, legacy_precision(hw));
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

namespace kp {
namespace {

// Data-parallel groups beside tensor parallelism on the SystemC network (NetJob::stride): the
// symmetric shortcut equals the full simulation; on the H100 fabric (8 GPUs a node, tp = 4) the
// groups share each node's NIC, carrying the bytes the twin's bandwidth / tp assumes: within one
// node they agree exactly; across nodes the SystemC NIC serves the 8 transfers of a step one after
// another, so a group that is served early starts its next step early and the network latency
// hides behind the others' bytes (SystemC up to ~7% faster here, never slower); on a ring, a
// group's neighbours are tp hops away and the groups queue on shared links, which the twin does
// not see (contention).
TEST(LayoutTwinVsSystemc, DataParallelGroupsShareTheFabric) {
  const HardwareSpec hw = parse_hardware(ConfigDoc::load(std::string(KP_SOURCE_DIR) + "/hw_configs/h100_cluster.yaml"));
  const SystemcStageTimer sc(hw, legacy_precision(hw));
  const AnalyticStageTimer twin(hw, legacy_precision(hw));
  const InterconnectSpec& ic = hw.interconnect;
  for (int64_t members : {2, 8, 16}) {
    const double bytes = 64e6;
    const double a = twin.group_allreduce_s(ic, members, 4, bytes), s = sc.group_allreduce_s(ic, members, 4, bytes);
    if (members == 2) EXPECT_NEAR(s, a, 1e-9 * a);
    EXPECT_LE(s, a * (1 + 1e-9)) << members;
    EXPECT_GT(s, 0.9 * a) << members;
    NetJob full;
    full.ic = ic, full.learners = 4 * members, full.bytes = bytes, full.stride = 4, full.symmetric = false;
    NetJob sym = full;
    sym.symmetric = true;
    const std::vector<NetRunStats> r = run_net_sc_forked({full, sym});
    EXPECT_NEAR(r[0].seconds, r[1].seconds, 1e-12 * r[0].seconds) << members;
    EXPECT_NEAR(r[0].seconds, s, 1e-12 * s);
  }
  InterconnectSpec ring;
  ring.topology = Topology::Ring, ring.collective = Collective::Ring;
  ring.link = {100e9, 1e-6};
  ring.max_learners = 64;
  const double a = twin.group_allreduce_s(ring, 8, 2, 64e6), s = sc.group_allreduce_s(ring, 8, 2, 64e6);
  EXPECT_GT(s, 1.5 * a);
}

}  // namespace
}  // namespace kp
