// The default study end to end, and the CLI's exit codes on bad input.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "core/config_doc.h"
#include "tools/report/report_writer.h"
#include "tools/study/design_space.h"
#include "tools/study/study_runner.h"

namespace kp {
namespace {

int cli(const std::string& args) {
  const int status = std::system((std::string(KP_CLI) + " " + args + " > /dev/null 2>&1").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string cli_stderr(const std::string& args) {
  // Named after the test: ctest runs this file's tests as concurrent processes sharing TempDir().
  const std::string out = ::testing::TempDir() + "stderr_" +
                          ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".txt";
  (void)std::system((std::string(KP_CLI) + " " + args + " > /dev/null 2> " + out).c_str());
  std::ifstream in(out);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const std::string kSrc = KP_SOURCE_DIR;

}  // namespace

TEST(Study, QuickstartRunsEndToEnd) {
  const StudySpec spec = parse_study(ConfigDoc::load(kSrc + "/studies/quickstart.yaml"));
  const StudyResult r = run_study(spec, nullptr);
  ASSERT_EQ(r.systems.size(), 8u);  // 4 systems x (ResNet-50, the MLP)
  for (const SystemResult& s : r.systems) {
    SCOPED_TRACE(s.name);
    // The reported best is the minimum over every point, recomputed here independently.
    double best = std::numeric_limits<double>::infinity();
    for (const TimePoint& p : s.prediction.points) {
      EXPECT_GE(p.batch, p.learners);
      EXPECT_LE(p.learners, s.max_learners);
      EXPECT_NEAR(p.t_total_s, p.steps * p.t_update_s, 1e-12 * p.t_total_s);
      best = std::min(best, p.t_total_s);
    }
    EXPECT_EQ(s.prediction.overall_best.t_total_s, best);
  }
  // Nested and not there yet: the report creates the parents (a fresh clone has no output folder).
  const std::string dir = ::testing::TempDir() + "kp_qs_" + std::to_string(::getpid()) + "/nested/qs";
  write_report(r, dir);
  std::ifstream md(dir + "/report.md");
  std::string first;
  std::getline(md, first);
  EXPECT_EQ(first, "# kneepoint study: quickstart");
  std::ifstream csv(dir + "/points.csv");
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header.rfind("system,batch,learners,per_learner_batch,steps,t_update_s", 0), 0u);
}

TEST(Study, EveryShippedStudyLoads) {
  size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kSrc + "/studies")) {
    if (entry.path().extension() != ".yaml") continue;
    SCOPED_TRACE(entry.path().string());
    const StudySpec s = parse_study(ConfigDoc::load(entry.path().string()));  // sweeps validated against the files
    EXPECT_GE(design_count(s), 1u);
    ++n;
  }
  EXPECT_GE(n, 3u);
  // 3 square arrays (zipped) x 5 SRAM sizes x 5 link bandwidths.
  const StudySpec tpu = parse_study(ConfigDoc::load(kSrc + "/studies/tpu_v3_design_space.yaml"));
  EXPECT_EQ(design_count(tpu), 75u);
  const DesignPointSpec last = design_point(tpu, 74);
  ASSERT_EQ(last.overrides.size(), 4u);
  EXPECT_EQ(last.overrides[0].assignment(), "chip.compute.array.rows=256");
  EXPECT_EQ(last.overrides[2].assignment(), "chip.memory.sram.capacity=128 MiB");
  EXPECT_EQ(last.overrides[3].assignment(), "interconnect.link.bandwidth=400 GB/s");
}

TEST(Study, T4VsH100RunsWithThePolluxCurveAndVerifiesBoth) {
  const StudyResult r = run_study(parse_study(ConfigDoc::load(kSrc + "/studies/t4_vs_h100.yaml")), nullptr);
  ASSERT_EQ(r.systems.size(), 2u);
  // The Pollux-derived fit of workloads/resnet18_cifar10.yaml (N_inf 883, alpha 2.83e6).
  EXPECT_NEAR(r.workloads.front().law.n_inf, 883, 1);
  for (const SystemResult& s : r.systems) {
    SCOPED_TRACE(s.name);
    EXPECT_TRUE(s.feasible);
    EXPECT_LE(s.chosen.learners, 64);
    EXPECT_TRUE(s.verify.done);  // verify_top: 2 covers both systems
    EXPECT_NEAR(s.chosen.cost_usd, s.chosen.learners * s.chosen.t_total_s / 3600 * s.cost_per_chip_hour_usd,
                1e-9 * s.chosen.cost_usd);
  }
}

TEST(Cli, ExitCodes) {
  EXPECT_EQ(cli("--version"), 0);
  EXPECT_EQ(cli("--list-kinds"), 0);
  EXPECT_EQ(cli("simulate --help"), 0);
  EXPECT_EQ(cli("nosuchverb"), 2);
  const std::string hw = kSrc + "/hw_configs/tpu_v3_pod.yaml", wl = kSrc + "/workloads/fmnist_mlp.yaml";
  EXPECT_EQ(cli("simulate --hw " + hw + " --workload " + wl + " --batch 256 --learners 16"), 0);
  EXPECT_EQ(cli("simulate --hw " + hw + " --workload " + wl + " --batch 256 --learners 16 --set 'chip.clock=9 Ghz'"), 2);
  EXPECT_EQ(cli("simulate --hw /nonexistent.yaml --workload " + wl + " --batch 256"), 2);
  EXPECT_EQ(cli("simulate --hw " + hw + " --workload " + wl + " --batch 0"), 2);
  EXPECT_EQ(cli("simulate --hw " + hw + " --workload " + wl + " --batch 8 --learners 5000"), 2);
  EXPECT_EQ(cli("predict --hw " + hw + " --workload " + wl + " --batches 16..1024 --learners 1..64 --format csv"), 0);
  EXPECT_EQ(cli("predict --hw " + hw + " --workload " + wl + " --batches x"), 2);
  EXPECT_EQ(cli("study " + kSrc + "/studies/quickstart.yaml --out /proc/kp_cannot_write"), 2);
  EXPECT_EQ(cli_stderr("simulate --hw " + hw + " --workload " + wl + " --batch 8 --set 'chip.clok=1 GHz'"),
            "--set chip.clok=1 GHz: error: chip.clok: unknown key (known here: clock, compute, memory)\n");
}

}  // namespace kp

namespace kp {

// `layout: search` in a study: a memory too small for any layout makes its design infeasible and
// the study goes on; points that fit nothing are listed as such, never chosen, and counted in the
// report's layout section.
TEST(Study, LayoutSearchMarksPointsThatDoNotFitAndCompletes) {
  const std::string text = "name: layouts\nworkload: " + kSrc + "/workloads/gpt2_medium.yaml\nhardware: [" + kSrc +
                           "/hw_configs/h100_cluster.yaml]\n"
                           "sweep:\n  - chip.memory.dram.capacity: [80 GB, 1 GB, 10 MB]\n"
                           "batches: {from: 8, to: 64}\nlearners: {from: 1, to: 16}\nlayout: search\n";
  const StudySpec spec = parse_study(ConfigDoc::parse(text, "layouts.yaml"));
  ASSERT_TRUE(spec.has_layout && spec.layout.search);
  const StudyResult r = run_study(spec, nullptr);
  ASSERT_EQ(r.systems.size(), 3u);
  const SystemResult &big = r.systems[0], &small = r.systems[1], &tiny = r.systems[2];
  EXPECT_TRUE(big.feasible);
  EXPECT_TRUE(big.chosen.fits);
  EXPECT_FALSE(tiny.feasible);  // 10 MB: not even the weights of one layer
  const int64_t misfits = small.prediction.infeasible_points;
  for (const TimePoint& p : small.prediction.points) EXPECT_TRUE(p.fits);
  // 355 M parameters x 16 B = 5.7 GB: one 1 GB chip cannot hold them, 16 sharded ones can.
  EXPECT_GT(misfits, 0);
  ASSERT_TRUE(small.feasible);
  EXPECT_TRUE(small.chosen.fits);
  EXPECT_GT(small.chosen.learners, 1);
  EXPECT_LE(small.chosen.memory.total(), 1e9);
  const std::string dir = ::testing::TempDir() + "kp_layouts_" + std::to_string(::getpid());
  write_report(r, dir);
  std::ifstream md(dir + "/report.md");
  std::stringstream ss;
  ss << md.rdbuf();
  EXPECT_NE(ss.str().find("## Parallel layouts (searched)"), std::string::npos);
  EXPECT_NE(ss.str().find(std::to_string(misfits) + " of " + std::to_string(small.prediction.points.size() + misfits) +
                          " (batch, chips) points fit no layout"),
            std::string::npos);
}

}  // namespace kp
