// kill -9 at seeded random moments during `kneepoint study` and `kneepoint curve`, then --resume
// (once killed a second time while resuming): the outputs equal an uninterrupted run's byte for
// byte, except a curve's run metadata (`# provenance:`, `# date:`, `# cost:` and the wall_s
// column, models/step_curve/curve_csv.h), which `kneepoint fit` ignores: its JSON must be equal too.
// The kill moments are fractions of the measured uninterrupted time, so they land before the
// journal exists, in the middle of the points, and while the outputs are written.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/scratch_dir.h"
#include "tests/tools/tiny_curve_workload.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

const std::string kSrc = KP_SOURCE_DIR;
constexpr unsigned kSeed = 20261207;
constexpr int kKills = 3;

std::string dir() { return kp::test::process_scratch_dir("kp_kill_resume"); }

std::string slurp(const std::string& path) {
  std::stringstream ss;
  ss << std::ifstream(path, std::ios::binary).rdbuf();
  return ss.str();
}

pid_t spawn(std::vector<std::string> a, const std::string& log) {
  const pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> argv;
    for (std::string& s : a) argv.push_back(s.data());
    argv.push_back(nullptr);
    if (FILE* f = std::fopen(log.c_str(), "w")) dup2(fileno(f), 1), dup2(fileno(f), 2);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

int wait_exit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? -WTERMSIG(status) : -1000;
}

// Runs `a` to the end; returns its wall time in seconds.
double run_timed(const std::vector<std::string>& a, const std::string& log) {
  const auto t0 = Clock::now();
  EXPECT_EQ(wait_exit(spawn(a, log)), 0) << slurp(log);
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Starts `a`, kills it with SIGKILL after `after_s` (if it still runs). True if it was killed.
bool run_and_kill(const std::vector<std::string>& a, double after_s, const std::string& log) {
  const pid_t pid = spawn(a, log);
  std::this_thread::sleep_for(std::chrono::duration<double>(after_s));
  kill(pid, SIGKILL);
  return wait_exit(pid) == -SIGKILL;
}

// The kill moments: fractions of the uninterrupted run time, seeded, from the very start to the end.
std::vector<double> kill_fractions() {
  std::mt19937 rng(kSeed);
  std::uniform_real_distribution<double> u(0.02, 1.0);
  std::vector<double> f;
  for (int i = 0; i < kKills; ++i) f.push_back(u(rng));
  return f;
}

std::vector<std::string> study_args(const std::string& study, const std::string& out, bool resume) {
  std::vector<std::string> a = {KP_CLI, "study", study, "--out", out, "--jobs", "2"};
  if (resume) a.push_back("--resume");
  return a;
}

// 54 design points of ResNet-50 on the TPU-v3-like pod: about a second, so a kill lands mid-run.
std::string write_study() {
  const std::string path = dir() + "/sweep.yaml";
  std::ofstream(path) << "name: kill-resume\n"
                         "workload: " << kSrc << "/workloads/resnet50_imagenet.yaml\n"
                         "hardware: [" << kSrc << "/hw_configs/tpu_v3_pod.yaml]\n"
                         "sweep:\n"
                         "  chip.compute.array.rows: [32, 128, 512]\n"
                         "  chip.memory.sram.capacity: {from: 4 MiB, to: 128 MiB, factor: 2}\n"
                         "  interconnect.link.bandwidth: {from: 25 GB/s, to: 800 GB/s, factor: 4}\n"
                         "batches: {from: 32, to: 65536}\n"
                         "learners: {from: 1, to: 1024}\n"
                         "objectives: [time, energy, cost]\n";
  return path;
}

TEST(KillResume, StudyOutputsEqualAnUninterruptedRunByteForByte) {
  const std::string study = write_study(), ref = dir() + "/study_ref";
  fs::remove_all(ref);
  const double full_s = run_timed(study_args(study, ref, false), dir() + "/study_ref.log");
  const char* outputs[] = {"report.md", "points.csv", "designs.csv", "summary.json", "report.html"};
  int killed = 0;
  for (size_t k = 0; k < kill_fractions().size(); ++k) {
    const double at = kill_fractions()[k] * full_s;
    SCOPED_TRACE("kill " + std::to_string(k) + " after " + std::to_string(at) + " s of " + std::to_string(full_s));
    const std::string out = dir() + "/study_" + std::to_string(k), log = out + ".log";
    fs::remove_all(out);
    killed += run_and_kill(study_args(study, out, false), at, log);
    if (k == 0) killed += run_and_kill(study_args(study, out, true), 0.5 * at, log + ".2");  // killed resuming
    ASSERT_EQ(wait_exit(spawn(study_args(study, out, true), log + ".resume")), 0) << slurp(log + ".resume");
    for (const char* f : outputs) EXPECT_EQ(slurp(out + "/" + f), slurp(ref + "/" + f)) << f;
    EXPECT_EQ(slurp(out + "/study.journal").size(), slurp(ref + "/study.journal").size());
  }
  EXPECT_GE(killed, 2) << "the kills came too late to test anything (" << full_s << " s runs)";
}

// A curve CSV without its run metadata: the provenance, date and cost comments and each trial
// row's last column (wall_s).
std::string curve_without_metadata(const std::string& path) {
  std::istringstream in(slurp(path));
  std::string out;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# provenance:", 0) == 0 || line.rfind("# date:", 0) == 0 || line.rfind("# cost:", 0) == 0)
      continue;
    if (!line.empty() && line[0] != '#') line = line.substr(0, line.rfind(','));
    out += line + "\n";
  }
  return out;
}

std::vector<std::string> curve_args(const std::string& workload, const std::string& out, bool resume) {
  std::vector<std::string> a = {KP_CLI, "curve", "--workload", workload, "--batches", "8,16,32,64",
                                "--trials", "8", "--eval-samples", "320", "--budget-steps", "1000",
                                "--budget-samples", "16000", "--jobs", "2", "--out", out};
  if (resume) a.push_back("--resume");
  return a;
}

TEST(KillResume, CurveEqualsAnUninterruptedRunButItsRunMetadata) {
  const std::string workload = dir() + "/tiny.yaml", ref = dir() + "/curve_ref.csv";
  std::ofstream(workload) << kp::tiny_curve_workload("tiny-kill-resume");
  for (const std::string& f : {ref, ref + ".journal"}) fs::remove(f);
  const double full_s = run_timed(curve_args(workload, ref, false), dir() + "/curve_ref.log");
  const std::string expected = curve_without_metadata(ref);
  ASSERT_NE(expected.find("reached"), std::string::npos) << expected;
  const std::string fit_ref = dir() + "/fit_ref.json";
  ASSERT_EQ(wait_exit(spawn({KP_CLI, "fit", ref, "--format", "json", "--bootstrap", "50"}, fit_ref)), 0);
  int killed = 0;
  for (size_t k = 0; k < kill_fractions().size(); ++k) {
    const double at = kill_fractions()[k] * full_s;
    SCOPED_TRACE("kill " + std::to_string(k) + " after " + std::to_string(at) + " s of " + std::to_string(full_s));
    const std::string out = dir() + "/curve_" + std::to_string(k) + ".csv", log = out + ".log";
    for (const std::string& f : {out, out + ".journal"}) fs::remove(f);
    killed += run_and_kill(curve_args(workload, out, false), at, log);
    if (k == 0) killed += run_and_kill(curve_args(workload, out, true), 0.5 * at, log + ".2");
    ASSERT_EQ(wait_exit(spawn(curve_args(workload, out, true), log + ".resume")), 0) << slurp(log + ".resume");
    EXPECT_EQ(curve_without_metadata(out), expected);
    const std::string fit = out + ".fit.json";
    ASSERT_EQ(wait_exit(spawn({KP_CLI, "fit", out, "--format", "json", "--bootstrap", "50"}, fit)), 0);
    // The fit names its source file; everything else must match.
    std::string a = slurp(fit), b = slurp(fit_ref);
    a.replace(a.find(out), out.size(), "CURVE");
    b.replace(b.find(ref), ref.size(), "CURVE");
    EXPECT_EQ(a, b);
  }
  EXPECT_GE(killed, 2) << "the kills came too late to test anything (" << full_s << " s runs)";
}

}  // namespace
