// Study files with sweeps: expansion order, zip vs cross, ranges with units, and positioned
// errors for invalid sweeps; choosing, ranking and the Pareto front on hand-made designs.
#include <gtest/gtest.h>

#include "core/config_doc.h"
#include "core/config_error.h"
#include "tools/study/design_eval.h"
#include "tools/study/study_select.h"
#include "tools/study/study_sweep.h"

namespace kp {
namespace {

const std::string kSrc = KP_SOURCE_DIR;
const std::string kOrigin = kSrc + "/studies/inline.yaml";  // relative paths resolve like a shipped study

StudySpec parse(const std::string& sweep) {
  return parse_study(ConfigDoc::parse("name: t\n"
                                      "workload: ../workloads/fmnist_mlp.yaml\n"
                                      "hardware: [../hw_configs/tpu_v3_pod.yaml]\n"
                                      "batches: [64, 256]\n"
                                      "learners: [1, 4]\n" + sweep,
                                      kOrigin));
}

// The first diagnostic of parsing the study, without the origin prefix.
std::string error_of(const std::string& sweep) {
  try {
    (void)parse(sweep);
  } catch (const ConfigError& e) {
    const std::string f = e.diagnostics().front().format();
    return f.substr(kOrigin.size());
  }
  return "no error";
}

std::string values(const DesignPointSpec& d) {
  std::string out;
  for (const Override& o : d.overrides) out += (out.empty() ? "" : ",") + o.value;
  return out;
}

TimePoint pt(double t, double e, double c, int64_t p = 1) {
  TimePoint x;
  x.t_total_s = t;
  x.energy_j = e;
  x.cost_usd = c;
  x.learners = p;
  x.batch = 64;
  return x;
}

}  // namespace

TEST(StudySweep, RangesExpandInTheUnitOfFrom) {
  EXPECT_EQ(expand_range(25, 400, 2, 0, "GB/s"),
            (std::vector<std::string>{"25 GB/s", "50 GB/s", "100 GB/s", "200 GB/s", "400 GB/s"}));
  // 0.1 steps computed from `from` each time: no drift past `to`, no 0.30000000000000004.
  EXPECT_EQ(expand_range(0.1, 0.3, 0, 0.1, "us"), (std::vector<std::string>{"0.1 us", "0.2 us", "0.3 us"}));
  EXPECT_EQ(expand_range(32, 100, 2, 0, ""), (std::vector<std::string>{"32", "64"}));
}

TEST(StudySweep, CrossEnumeratesLastKeyFastest) {
  const StudySpec s = parse(
      "sweep:\n"
      "  chip.compute.array.rows: [64, 128]\n"
      "  interconnect.link.bandwidth: {from: 25 GB/s, to: 100 GB/s, factor: 2}\n");
  ASSERT_EQ(design_count(s), 6u);
  EXPECT_EQ(values(design_point(s, 0)), "64,25 GB/s");
  EXPECT_EQ(values(design_point(s, 1)), "64,50 GB/s");
  EXPECT_EQ(values(design_point(s, 2)), "64,100 GB/s");
  EXPECT_EQ(values(design_point(s, 5)), "128,100 GB/s");
  EXPECT_EQ(design_point(s, 3).overrides[0].assignment(), "chip.compute.array.rows=128");
}

TEST(StudySweep, ZipGroupsAdvanceTogetherAndCrossWithOtherGroups) {
  const StudySpec s = parse(
      "sweep:\n"
      "  - zip:\n"
      "      chip.compute.array.rows: [32, 64, 128]\n"
      "      chip.compute.array.cols: [32, 64, 128]\n"
      "  - chip.memory.sram.capacity: [16 MiB, 32 MiB]\n");
  ASSERT_EQ(design_count(s), 6u);
  EXPECT_EQ(values(design_point(s, 0)), "32,32,16 MiB");
  EXPECT_EQ(values(design_point(s, 1)), "32,32,32 MiB");
  EXPECT_EQ(values(design_point(s, 4)), "128,128,16 MiB");
}

TEST(StudySweep, DesignPointsApplyTheirOverrides) {
  const StudySpec s = parse("sweep:\n  chip.compute.array.rows: [64, 128]\n  chip.compute.array.cols: [64, 128]\n");
  const DesignEvaluator eval(s);
  const SystemResult small = eval.evaluate(0), big = eval.evaluate(3);
  EXPECT_EQ(small.name, "tpu-v3-pod [rows=64; cols=64]");
  EXPECT_EQ(big.name, "tpu-v3-pod [rows=128; cols=128]");
  ASSERT_TRUE(small.feasible && big.feasible);
  // A quarter of the array cannot be faster on the same (M, P) point.
  for (size_t i = 0; i < small.prediction.points.size(); ++i)
    EXPECT_GE(small.prediction.points[i].t_update_s, big.prediction.points[i].t_update_s);
  // Unswept fields come from the base file: the price is the TPU-v3 list price.
  EXPECT_EQ(small.cost_per_chip_hour_usd, 2.0);
}

TEST(StudySweep, InvalidSweepsAreErrorsAtTheirPosition) {
  EXPECT_EQ(error_of("sweep:\n  chip.compute.array.rowz: [64, 128]\n"),
            ":7:3: error: sweep.chip.compute.array.rowz: unknown key (known here: cols, count, "
            "dataflow, kind, peak, rows) (in " + kSrc + "/hw_configs/tpu_v3_pod.yaml)");
  EXPECT_EQ(error_of("sweep:\n  chip.nosuch.rows: [64]\n"),
            ":7:3: error: sweep.chip.nosuch.rows: no such map in the configuration (in " + kSrc +
                "/hw_configs/tpu_v3_pod.yaml)");
  EXPECT_EQ(error_of("sweep:\n  chip.memory.sram.capacity: []\n"),
            ":7:30: error: sweep.chip.memory.sram.capacity: expected a non-empty list of values");
  EXPECT_EQ(error_of("sweep:\n  interconnect.link.bandwidth: {from: 25 GB/s, to: 400 GHz, factor: 2}\n"),
            ":7:52: error: sweep.interconnect.link.bandwidth.to: expected a bandwidth like from (B/s, KB/s, MB/s, "
            "GB/s, GiB/s, TB/s, Mb/s, Gb/s, Gbit/s, Tb/s), got \"400 GHz\"");
  // A range in a unit the key does not take: the reader's message, at `from`.
  EXPECT_EQ(error_of("sweep:\n  interconnect.link.latency: {from: 1 GB/s, to: 4 GB/s, factor: 2}\n"),
            ":7:37: error: sweep.interconnect.link.latency: value \"1 GB/s\": unknown unit \"GB/s\": expected a "
            "time with a unit (ps, ns, us, ms, s), got \"1 GB/s\" (in " + kSrc + "/hw_configs/tpu_v3_pod.yaml)");
  EXPECT_EQ(error_of("sweep:\n  chip.clock: {from: 1 GHz, to: 2 GHz, factor: 1}\n"),
            ":7:48: error: sweep.chip.clock.factor: expected a plain number > 1, got \"1\"");
  EXPECT_EQ(error_of("sweep:\n  chip.clock: {from: 2 GHz, to: 1 GHz, factor: 2}\n"),
            ":7:33: error: sweep.chip.clock.to: expected to >= from");
  EXPECT_EQ(error_of("sweep:\n  chip.compute.array.rows: [64, -1]\n"),
            ":7:33: error: sweep.chip.compute.array.rows: value \"-1\": expected an integer in [1, 2^16 (65536)], got \"-1\" (in " +
                kSrc + "/hw_configs/tpu_v3_pod.yaml)");
  EXPECT_EQ(error_of("sweep:\n  - zip:\n      chip.compute.array.rows: [32, 64]\n      chip.compute.array.cols: [32]\n"),
            ":9:32: error: sweep.chip.compute.array.cols: zip: expected 2 values like chip.compute.array.rows, got 1");
  EXPECT_EQ(error_of("sweep: 3\n"),
            ":6:8: error: sweep: expected a map of dotted keys (crossed) or a list of zip:/cross: groups");
}

TEST(StudySpec, ObjectivesConstraintsAndFidelityAreValidated) {
  const StudySpec ok = parse("objectives: [cost, time]\nconstraints: {max_chips: 64, max_cost: 20 USD}\nverify_top: 3\n");
  EXPECT_EQ(ok.objectives, (std::vector<Objective>{Objective::Cost, Objective::Time}));
  EXPECT_EQ(ok.max_chips, 64);
  EXPECT_EQ(ok.max_cost_usd, 20.0);
  EXPECT_EQ(ok.verify_top, 3);
  EXPECT_EQ(error_of("objectives: [time, speed]\n"),
            ":6:20: error: objectives: expected one of time, energy, cost, got \"speed\"");
  EXPECT_EQ(error_of("objectives: [time, time]\n"), ":6:20: error: objectives: \"time\" listed twice");
  EXPECT_EQ(error_of("constraints: {max_chip: 4}\n"),
            ":6:15: error: constraints.max_chip: unknown key (known here: max_chips, max_cost)");
  EXPECT_EQ(error_of("constraints: {max_cost: 20}\n"),
            ":6:25: error: constraints.max_cost: expected a price with a unit (USD, $), got \"20\"");
  EXPECT_EQ(error_of("fidelity: cycle\n"), ":6:11: error: fidelity: expected analytic or systemc, got \"cycle\"");
  EXPECT_EQ(error_of("fidelity: systemc\nverify_top: 2\n"),
            ":7:13: error: verify_top: verify_top re-simulates analytic results in SystemC: needs fidelity analytic");
}

TEST(StudySelect, ChoosesUnderConstraintsRanksAndFlagsThePareto) {
  StudyResult r;
  r.spec.objectives = {Objective::Time, Objective::Cost};
  r.spec.max_cost_usd = 10;
  r.workloads.resize(1);
  // Design 0: its fastest point costs too much, so the 2nd-fastest is chosen.
  // Design 1: slower and cheaper than 0's chosen point (Pareto). Design 2: dominated by 1.
  const std::vector<std::vector<TimePoint>> points = {
      {pt(1.0, 5, 20, 8), pt(2.0, 5, 8, 4), pt(3.0, 5, 1, 1)}, {pt(4.0, 5, 2)}, {pt(5.0, 5, 3)}};
  for (size_t i = 0; i < points.size(); ++i) {
    SystemResult s;
    s.index = i;
    s.prediction.points = points[i];
    choose_point(r.spec, s);
    r.systems.push_back(s);
  }
  EXPECT_EQ(r.systems[0].chosen.t_total_s, 2.0);
  EXPECT_EQ(r.systems[0].chosen.learners, 4);
  rank_designs(r);
  EXPECT_EQ(r.systems[0].rank, 1);
  EXPECT_EQ(r.systems[1].rank, 2);
  EXPECT_EQ(r.systems[2].rank, 3);
  EXPECT_TRUE(r.systems[0].pareto);
  EXPECT_TRUE(r.systems[1].pareto);
  EXPECT_FALSE(r.systems[2].pareto);
  // No point under the cost cap: infeasible, unranked, off the front.
  r.spec.max_cost_usd = 0.5;
  for (SystemResult& s : r.systems) choose_point(r.spec, s);
  rank_designs(r);
  for (const SystemResult& s : r.systems) EXPECT_TRUE(!s.feasible && s.rank == 0 && !s.pareto);
}

}  // namespace kp
