// The SystemC fidelity in studies: one forked pool for many points gives exactly what
// SystemcUpdate::simulate() gives point by point, for `fidelity: systemc` and for verify_top.
#include <gtest/gtest.h>

#include "core/config_doc.h"
#include "tools/study/case_loader.h"
#include "tools/study/pooled_systemc.h"
#include "tools/study/study_runner.h"

namespace kp {
namespace {

const std::string kSrc = KP_SOURCE_DIR;
const std::string kHw = kSrc + "/hw_configs/tpu_v3_pod.yaml";
const std::string kWl = kSrc + "/workloads/fmnist_mlp.yaml";

StudySpec small_study(const std::string& fidelity_lines) {
  return parse_study(ConfigDoc::parse("name: sc\n"
                                      "workload: ../workloads/fmnist_mlp.yaml\n"
                                      "hardware: [../hw_configs/tpu_v3_pod.yaml]\n"
                                      "sweep:\n"
                                      "  chip.compute.array.rows: [32, 128]\n"
                                      "batches: [64, 256]\n"
                                      "learners: [1, 4]\n"
                                      "weak_per_learner_batch: 32\n" + fidelity_lines,
                                      kSrc + "/studies/inline.yaml"));
}

}  // namespace

TEST(StudySystemc, PoolEqualsOneForkPerPoint) {
  const Case c = load_case(kHw, kWl);
  const SystemcUpdate direct(c.hw, c.step, c.precision);
  PooledSystemcUpdate pooled(c.hw, c.step, c.precision);
  const std::vector<std::pair<int64_t, int64_t>> points = {{64, 1}, {256, 4}, {256, 1}, {100, 3}};
  std::vector<ScRequest> requests;
  for (const auto& p : points) requests.push_back({&pooled, (p.first + p.second - 1) / p.second});
  run_systemc_requests(requests, 2);
  for (const auto& p : points) {
    const UpdateResult a = direct.simulate(p.first, p.second), b = pooled.simulate(p.first, p.second);
    EXPECT_EQ(a.breakdown.t_update_s, b.breakdown.t_update_s) << p.first << "/" << p.second;
    EXPECT_EQ(a.energy_j, b.energy_j);
  }
}

TEST(StudySystemc, FidelitySystemcEvaluatesEveryPointInSystemc) {
  const StudyResult r = run_study(small_study("fidelity: systemc\n"), nullptr);
  ASSERT_EQ(r.systems.size(), 2u);
  for (const SystemResult& s : r.systems) {
    EXPECT_EQ(s.fidelity, "systemc");
    const Case c = load_case(kHw, kWl, {s.overrides.front().assignment()});
    const SystemcUpdate direct(c.hw, c.step, c.precision);
    ASSERT_EQ(s.prediction.points.size(), 4u);  // (64, 256) x (1, 4)
    for (const TimePoint& p : s.prediction.points)
      EXPECT_EQ(p.t_update_s, direct.simulate(p.batch, p.learners).breakdown.t_update_s) << s.name;
    EXPECT_EQ(s.prediction.scaling.back().weak.t_update_s, direct.simulate(32 * 4, 4).breakdown.t_update_s);
  }
}

TEST(StudySystemc, VerifyTopResimulatesTheChosenPointsOfTheBestDesigns) {
  const StudyResult r = run_study(small_study("verify_top: 1\n"), nullptr);
  int verified = 0;
  for (const SystemResult& s : r.systems) {
    if (s.rank != 1) {
      EXPECT_FALSE(s.verify.done) << s.name;
      continue;
    }
    ++verified;
    ASSERT_TRUE(s.verify.done);
    const Case c = load_case(kHw, kWl, {s.overrides.front().assignment()});
    const SystemcUpdate direct(c.hw, c.step, c.precision);
    const UpdateResult u = direct.simulate(s.chosen.batch, s.chosen.learners);
    EXPECT_EQ(s.verify.systemc.batch, s.chosen.batch);
    EXPECT_EQ(s.verify.systemc.learners, s.chosen.learners);
    EXPECT_EQ(s.verify.systemc.t_update_s, u.breakdown.t_update_s);
    EXPECT_DOUBLE_EQ(s.verify.systemc.t_total_s, s.chosen.steps * u.breakdown.t_update_s);
    // Absolute tolerance: the twin equals SystemC to ~1e-10, where a/b - 1 and (a - b)/b differ in
    // their last bits.
    EXPECT_NEAR(s.verify.t_update_rel_diff, u.breakdown.t_update_s / s.chosen.t_update_s - 1, 1e-15);
  }
  EXPECT_EQ(verified, 1);
}

}  // namespace kp
