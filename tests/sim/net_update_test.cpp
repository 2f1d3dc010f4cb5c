// The systemc fidelity's all-reduce runs on the SystemC interconnect, bucket by bucket.
#include <gtest/gtest.h>

#include <string>

#include "tests/legacy_precision.h"
#include "core/config_doc.h"
#include "core/network_spec.h"
#include "core/workload_spec.h"
#include "sim/analytic/collective_analytic.h"
#include "sim/analytic/update_analytic.h"
#include "sim/systemc/systemc_update.h"

namespace kp {

TEST(NetUpdate, ContentionFreeBucketsEqualTheTwinsClosedForm) {
  // tpu_v3_pod: torus2d collective on a torus, two ring directions: no link is shared, so each
  // bucket's SystemC all-reduce equals the closed form, and so do the totals of the update.
  const std::string src(KP_SOURCE_DIR);
  HardwareSpec hw = parse_hardware(ConfigDoc::load(src + "/hw_configs/tpu_v3_pod.yaml"));
  hw.interconnect.bucket_bytes = 8.0 * 1048576;  // ResNet-18 in bf16 is 22 MB: three buckets
  const WorkloadSpec w = parse_workload(ConfigDoc::load(src + "/workloads/resnet18_cifar10.yaml"));
  const LoweredStep step = lower_training_step(resolve_network(w.network));
  StepProfileBuilder builder(step, hw.interconnect.bucket_bytes, hw.interconnect.first_bucket_bytes,
                             legacy_precision(hw).bytes.gradients, 4, nullptr);
  const ChipAnalytic chip(hw, legacy_precision(hw));
  for (const Op& op : step.ops) builder.add(op, chip.cost(op, 4));
  const StepProfile prof = builder.done();
  ASSERT_GE(prof.buckets.size(), 2u);
  const std::vector<double> sc = bucket_allreduce_s(hw.interconnect, 64, prof);
  for (size_t b = 0; b < sc.size(); ++b)
    EXPECT_NEAR(sc[b], allreduce_s(hw.interconnect, 64, prof.buckets[b].second), 1e-12 * sc[b]);
  const UpdateResult twin = finish_update(prof, hw, 4, 64);
  const UpdateResult net = finish_update(prof, hw, 4, 64, 1, &sc);
  EXPECT_NEAR(net.breakdown.allreduce_s, twin.breakdown.allreduce_s, 1e-12);
  EXPECT_NEAR(net.breakdown.allreduce_exposed_s, twin.breakdown.allreduce_exposed_s, 1e-12);
}

TEST(NetUpdate, SharedNicMakesTheFidelitiesDiffer) {
  // t4_cluster's fabric with the hierarchical collective, 2 nodes x 4 GPUs: four rings share each
  // NIC; one ring's latency hides behind the others' transfers (net_contention_test.cpp), so
  // SystemC is below the closed form, never above.
  const std::string src(KP_SOURCE_DIR);
  HardwareSpec hw = parse_hardware(ConfigDoc::load(src + "/hw_configs/t4_cluster.yaml"));
  hw.interconnect.collective = Collective::Hierarchical;  // t4_cluster ships NCCL's flat ring
  StepProfile prof;
  prof.buckets = {{0.0, 25.0 * 1048576}, {0.0, 4.0 * 1048576}};
  const std::vector<double> sc = bucket_allreduce_s(hw.interconnect, 8, prof);
  for (size_t b = 0; b < sc.size(); ++b) {
    const double closed = allreduce_s(hw.interconnect, 8, prof.buckets[b].second);
    EXPECT_LT(sc[b], closed);
    EXPECT_GT(sc[b], 0.9 * closed);
  }
}

}  // namespace kp
