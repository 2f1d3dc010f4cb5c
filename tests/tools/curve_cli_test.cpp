// kneepoint curve end to end on a tiny synthetic workload: killed with SIGKILL in the middle of a
// measurement and resumed, the final CSV equals an uninterrupted run's (every column but the wall
// times); the same with another number of jobs; and bad options exit 2.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "models/step_curve/published_curve.h"
#include "models/step_curve/step_law_fit.h"
#include "tests/scratch_dir.h"
#include "tests/tools/tiny_curve_workload.h"

namespace {

const std::string kWorkload = kp::tiny_curve_workload("tiny-curve-cli");

std::string dir() { return kp::test::process_scratch_dir("kp_curve_cli"); }

std::string workload() {
  const std::string p = dir() + "/tiny.yaml";
  std::ofstream(p) << kWorkload;
  return p;
}

std::vector<std::string> args(const std::string& out, int jobs) {
  return {KP_CLI, "curve", "--workload", workload(), "--batches", "8,16,32,64", "--trials", "8",
          "--eval-samples", "320", "--budget-steps", "1000", "--budget-samples", "16000",
          "--jobs", std::to_string(jobs), "--out", out};
}

pid_t spawn(std::vector<std::string> a, const std::string& log) {
  const pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> argv;
    for (std::string& s : a) argv.push_back(s.data());
    argv.push_back(nullptr);
    FILE* f = std::fopen(log.c_str(), "w");
    if (f) dup2(fileno(f), 1), dup2(fileno(f), 2);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

int wait_exit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string slurp(const std::string& path) {
  std::stringstream ss;
  ss << std::ifstream(path).rdbuf();
  return ss.str();
}

int lines(const std::string& path) {
  int n = 0;
  for (char c : slurp(path)) n += c == '\n';
  return n;
}

// The trial rows without their last column (wall_s).
std::vector<std::string> rows_without_wall(const std::string& csv) {
  std::vector<std::string> out;
  std::istringstream in(slurp(csv));
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    out.push_back(line.substr(0, line.rfind(',')));
  }
  return out;
}

TEST(CurveCli, SigkillThenResumeGivesTheUninterruptedCurve) {
  const std::string ref = dir() + "/ref.csv", cut = dir() + "/cut.csv";
  for (const std::string& f : {ref, ref + ".journal", cut, cut + ".journal"}) std::filesystem::remove(f);
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(wait_exit(spawn(args(ref, 2), dir() + "/ref.log")), 0) << slurp(dir() + "/ref.log");
  const double full_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::vector<std::string> expected = rows_without_wall(ref);
  ASSERT_EQ(expected.size(), 1u + 32u);  // header + 4 batch sizes x 8 trials
  int reached = 0, pruned = 0;
  for (const std::string& r : expected) {
    reached += r.find("reached") != std::string::npos;
    pruned += r.find("pruned") != std::string::npos;
  }
  ASSERT_GE(reached, 4) << "the tiny problem must be learnable for the comparison to mean something";
  ASSERT_GE(pruned, 4) << "and exercise pruning";

  // Kill once a few trials are journaled (header + >= 3 lines) but before the run ends.
  const pid_t pid = spawn(args(cut, 2), dir() + "/cut.log");
  while (lines(cut + ".journal") < 4 &&
         std::chrono::steady_clock::now() - t0 < std::chrono::seconds(static_cast<int>(10 * full_s + 60)))
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the run ended before it could be killed (" << full_s << " s)";
  EXPECT_FALSE(std::filesystem::exists(cut)) << "no curve CSV before the end";
  const int journaled = lines(cut + ".journal") - 1;
  EXPECT_GE(journaled, 3);
  EXPECT_LT(journaled, 32);

  // Resume, with one job this time: the same records.
  std::vector<std::string> resume = args(cut, 1);
  resume.push_back("--resume");
  ASSERT_EQ(wait_exit(spawn(resume, dir() + "/resume.log")), 0) << slurp(dir() + "/resume.log");
  EXPECT_EQ(rows_without_wall(cut), expected);
  const std::string log = slurp(dir() + "/resume.log");
  EXPECT_NE(log.find("wall time"), std::string::npos) << log;
  EXPECT_NE(log.find("B_simple"), std::string::npos) << log;
  // kneepoint fit reads B_simple from the provenance and fits the lr scaling from the trial rows.
  const std::string fit_log = dir() + "/fit.json";
  ASSERT_EQ(wait_exit(spawn({KP_CLI, "fit", cut, "--format", "json", "--bootstrap", "50"}, fit_log)), 0)
      << slurp(fit_log);
  const std::string fit = slurp(fit_log);
  EXPECT_NE(fit.find("\"b_simple\": "), std::string::npos) << fit;
  EXPECT_EQ(fit.find("\"b_simple\": null"), std::string::npos) << fit;
  EXPECT_NE(fit.find("\"lr_exponent\": {\"value\": "), std::string::npos) << fit;
  EXPECT_NE(fit.find("\"effective_lr_exponent\""), std::string::npos) << fit;
  // Without --resume, an existing journal is refused (exit 2, the journal named).
  std::vector<std::string> again = args(cut, 1);
  const std::string again_log = dir() + "/again.log";
  EXPECT_EQ(wait_exit(spawn(again, again_log)), 2);
  EXPECT_NE(slurp(again_log).find(cut + ".journal"), std::string::npos) << slurp(again_log);
}

TEST(CurveCli, BadOptionsExit2) {
  const std::string log = dir() + "/bad.log";
  std::vector<std::string> a = args(dir() + "/bad.csv", 1);
  a.push_back("--protocol");
  a.push_back("fast");
  EXPECT_EQ(wait_exit(spawn(a, log)), 2);
  EXPECT_NE(slurp(log).find("fast"), std::string::npos) << slurp(log);
  a = args(dir() + "/bad.csv", 1);
  a.push_back("--order");
  a.push_back("random");
  EXPECT_EQ(wait_exit(spawn(a, log)), 2);
  EXPECT_NE(slurp(log).find("--order"), std::string::npos) << slurp(log);
  // A negative seed: Boost would read it into an unsigned seed as 2^64 - 1 and run.
  a = args(dir() + "/bad.csv", 1);
  a.push_back("--seed");
  a.push_back("-1");
  EXPECT_EQ(wait_exit(spawn(a, log)), 2);
  EXPECT_NE(slurp(log).find("--seed: error: expected an integer >= 0"), std::string::npos)
      << slurp(log);
  // kneepoint fit's bootstrap seed alike (refused before the CSV is opened).
  EXPECT_EQ(wait_exit(spawn({KP_CLI, "fit", dir() + "/bad.csv", "--seed", "-1"}, log)), 2);
  EXPECT_NE(slurp(log).find("--seed: error: expected an integer >= 0"), std::string::npos)
      << slurp(log);
}

// kneepoint fit on a published-steps CSV fits the picked curve's per-batch means, the same points
// (and so the same law) as fit_step_law(mean_per_batch(select_runs(...))) in-process.
TEST(CurveCli, FitPicksOneCurveOfAPublishedFile) {
  const std::string csv = std::string(KP_SOURCE_DIR) + "/workloads/published/resnet50_imagenet_steps.csv";
  const std::string log = dir() + "/published_fit.json";
  ASSERT_EQ(wait_exit(spawn({KP_CLI, "fit", csv, "--optimizer", "lars", "--target", "0.759", "--format", "json",
                             "--bootstrap", "0"},
                            log)),
            0)
      << slurp(log);
  const std::string json = slurp(log);
  const std::string key = "\"n_inf\": {\"value\": ";
  const size_t at = json.find(key);
  ASSERT_NE(at, std::string::npos) << json;
  const double n_inf = std::strtod(json.c_str() + at + key.size(), nullptr);
  const kp::StepLawFit fit = kp::fit_step_law(
      kp::mean_per_batch(kp::select_runs(kp::read_published_curve(csv), "lars", kp::PublishedMeasure::to_target, 0.759)),
      {.bootstrap_resamples = 0});
  EXPECT_NEAR(n_inf, fit.law.n_inf, 1e-6 * fit.law.n_inf) << json;
  EXPECT_NE(json.find("\"method\": \"none\""), std::string::npos) << json;
}

}  // namespace
