// The study journal: exact round trip of results, torn and corrupt lines, a real kill -9 and
// --resume, `kneepoint report DIR`, and the progress line.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/config_doc.h"
#include "core/config_error.h"
#include "tools/study/progress.h"
#include "tools/study/result_codec.h"
#include "tools/study/study_journal.h"
#include "tools/study/study_runner.h"

namespace kp {
namespace {

const std::string kSrc = KP_SOURCE_DIR;
const char* kOutputs[] = {"report.md", "points.csv", "summary.json", "report.html"};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

size_t count_lines(const std::string& path, char kind) {
  std::ifstream in(path);
  size_t n = 0;
  for (std::string line; std::getline(in, line);) n += !line.empty() && line[0] == kind;
  return n;
}

int cli(const std::string& args) {
  const int status = std::system((std::string(KP_CLI) + " " + args + " > /dev/null 2>&1").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string fresh_dir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "kp_journal_" + std::to_string(::getpid()) + "_" + name;
  (void)std::system(("rm -rf " + dir).c_str());
  return dir;
}

// A sweep of 216 design points on the TPU-v3-like pod, slow enough (ResNet-50) to be killed midway.
std::string write_sweep_study(const std::string& dir) {
  (void)std::system(("mkdir -p " + dir).c_str());
  const std::string path = dir + "/sweep.yaml";
  std::ofstream(path) << "name: kill-resume\n"
                         "workload: " << kSrc << "/workloads/resnet50_imagenet.yaml\n"
                         "hardware: [" << kSrc << "/hw_configs/tpu_v3_pod.yaml]\n"
                         "sweep:\n"
                         "  chip.compute.array.rows: [32, 64, 128, 256, 512, 1024]\n"
                         "  chip.memory.sram.capacity: {from: 4 MiB, to: 128 MiB, factor: 2}\n"
                         "  interconnect.link.bandwidth: {from: 25 GB/s, to: 800 GB/s, factor: 2}\n"
                         "batches: {from: 32, to: 65536}\n"
                         "learners: {from: 1, to: 1024}\n"
                         "objectives: [time, energy, cost]\n";
  return path;
}

}  // namespace

TEST(StudyJournal, DesignsRoundTripExactly) {
  const StudyResult r = run_study(parse_study(ConfigDoc::load(kSrc + "/studies/quickstart.yaml")), nullptr);
  for (const SystemResult& s : r.systems) {
    const std::string text = encode_design(s);
    EXPECT_EQ(text.find('\n'), std::string::npos);
    const SystemResult back = decode_design(text);
    EXPECT_EQ(encode_design(back), text);
    ASSERT_EQ(back.prediction.points.size(), s.prediction.points.size());
    for (size_t i = 0; i < s.prediction.points.size(); ++i) {
      EXPECT_EQ(back.prediction.points[i].t_total_s, s.prediction.points[i].t_total_s);  // bit-exact
      EXPECT_EQ(back.prediction.points[i].energy_j, s.prediction.points[i].energy_j);
      EXPECT_EQ(back.prediction.points[i].breakdown.power_clock_scale,
                s.prediction.points[i].breakdown.power_clock_scale);
    }
    EXPECT_EQ(back.name, s.name);
    EXPECT_EQ(back.chosen.cost_usd, s.chosen.cost_usd);
  }
  StudySpec spec;
  std::vector<WorkloadResult> w;
  decode_header(encode_header(r.spec, r.workloads), spec, w);
  EXPECT_EQ(encode_header(spec, w), encode_header(r.spec, r.workloads));
  EXPECT_EQ(w.front().law.alpha, r.workloads.front().law.alpha);
  SystemResult odd;
  odd.name = "a b%c\nd";  // spaces, percent signs and line breaks survive
  odd.overrides.push_back({"x.y", ""});
  EXPECT_EQ(decode_design(encode_design(odd)).name, odd.name);
  EXPECT_EQ(decode_design(encode_design(odd)).overrides.front().value, "");
}

TEST(StudyJournal, TornLastLineIsDroppedCorruptMiddleLineIsAnError) {
  const std::string dir = fresh_dir("torn");
  (void)std::system(("mkdir -p " + dir).c_str());
  const std::string path = dir + "/study.journal";
  const std::string good = journal_line('H', "fp study") + journal_line('D', "1 a") + journal_line('D', "2 b");
  std::ofstream(path, std::ios::binary) << good << "D 3 c *1234";  // killed mid-write: no newline
  StudyJournalContents c = read_study_journal(path);
  EXPECT_EQ(c.header, "fp study");
  EXPECT_EQ(c.designs, (std::vector<std::string>{"1 a", "2 b"}));
  EXPECT_TRUE(c.torn_tail);
  EXPECT_EQ(c.good_bytes, good.size());
  {
    StudyJournal j(path, "fp study", true);  // resume truncates the torn end away
    EXPECT_EQ(j.resumed().designs.size(), 2u);
    j.append('D', "3 c");
  }
  EXPECT_EQ(slurp(path), good + journal_line('D', "3 c"));
  // A complete last line whose check fails is torn too; one in the middle is corruption.
  std::string bad = journal_line('D', "4 d");
  bad[2] = '5';
  std::ofstream(path, std::ios::binary) << good << bad;
  EXPECT_EQ(read_study_journal(path).designs.size(), 2u);
  std::ofstream(path, std::ios::binary) << good << bad << journal_line('D', "6 f");
  EXPECT_THROW(read_study_journal(path), ConfigError);
  // Resuming with another study's header is refused.
  std::ofstream(path, std::ios::binary) << good;
  EXPECT_THROW(StudyJournal(path, "other study", true), ConfigError);
}

TEST(StudyJournal, KillNineThenResumeEqualsAnUninterruptedRun) {
  const std::string dir = fresh_dir("kill");
  const std::string study = write_sweep_study(dir);
  const std::string ref = dir + "/ref", run = dir + "/run";
  ASSERT_EQ(cli("study " + study + " --out " + ref + " --jobs 1"), 0);
  ASSERT_EQ(count_lines(ref + "/study.journal", 'D'), 216u);

  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::execl(KP_CLI, KP_CLI, "study", study.c_str(), "--out", run.c_str(), "--jobs", "2", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  const std::string journal = run + "/study.journal";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (count_lines(journal, 'D') < 20 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  const size_t kept = count_lines(journal, 'D');
  EXPECT_GE(kept, 20u);
  ASSERT_LT(kept, 216u) << "the run finished before the kill: nothing was tested";
  for (const char* f : kOutputs) EXPECT_NE(::access((run + "/" + f).c_str(), F_OK), 0) << f;
  // Also tear the last record, as a kill in the middle of a write would.
  std::ofstream(journal, std::ios::app | std::ios::binary) << "D 999 half a reco";

  ASSERT_EQ(cli("study " + study + " --out " + run + " --resume --jobs 2"), 0);
  EXPECT_EQ(count_lines(journal, 'D'), 216u);  // the kept points were not redone, none lost
  for (const char* f : kOutputs) EXPECT_EQ(slurp(run + "/" + f), slurp(ref + "/" + f)) << f;
}

TEST(StudyJournal, ReportRegeneratesFromTheJournalAlone) {
  const std::string dir = fresh_dir("report");
  const std::string src = kSrc + "/studies/quickstart.yaml";
  ASSERT_EQ(cli("study " + src + " --out " + dir), 0);
  std::vector<std::string> before;
  for (const char* f : kOutputs) {
    before.push_back(slurp(dir + "/" + f));
    ASSERT_EQ(std::remove((dir + "/" + f).c_str()), 0);
  }
  ASSERT_EQ(cli("report " + dir), 0);
  for (size_t i = 0; i < before.size(); ++i) EXPECT_EQ(slurp(dir + "/" + kOutputs[i]), before[i]) << kOutputs[i];
  // An unfinished run (a design record missing) or no journal at all: exit 2, not a partial report.
  const std::string journal = slurp(dir + "/study.journal");
  std::ofstream(dir + "/study.journal", std::ios::binary) << journal.substr(0, journal.rfind("\nD ") + 1);
  EXPECT_EQ(cli("report " + dir), 2);
  EXPECT_EQ(cli("report " + dir + "/nonexistent"), 2);
}

TEST(StudyProgress, LineShowsCountPercentRateAndEta) {
  EXPECT_EQ(Progress::line(30, 120, 10, "design points"), "30/120 design points (25%), 10/s, ETA 9 s");
  EXPECT_EQ(Progress::line(0, 1000, 2, "points"), "0/1000 points (0%), 2/s, ETA 8 min 20 s");
  EXPECT_EQ(Progress::line(5, 5, 1.5, "points"), "5/5 points (100%), 1.5/s, ETA 0 s");
}

}  // namespace kp
