// mpirun -np N kneepoint curve (tools/curve_mpi.h, tools/study/curve_ranks.h): the ranks share the
// batch-size chains and rank 0 writes exactly the records a one-process run writes; journals left
// by a killed run of any number of ranks are resumed (also a real SIGKILL of mpirun, resumed by
// one process); a study under mpirun measures a stale
// measured cache on all ranks; the chain assignment on a hand-computed case.
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

#include "core/config_doc.h"
#include "tests/scratch_dir.h"
#include "tests/tools/tiny_curve_workload.h"
#include "tools/study/curve_ranks.h"

namespace kp {
namespace {

const std::string kWorkload = kp::tiny_curve_workload("tiny-curve-mpi");

std::string dir() { return test::process_scratch_dir("kp_curve_mpi"); }

std::string slurp(const std::string& path) {
  std::stringstream ss;
  ss << std::ifstream(path).rdbuf();
  return ss.str();
}

int run(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string curve_args(const std::string& out, int jobs) {
  const std::string w = dir() + "/tiny.yaml";
  std::ofstream(w) << kWorkload;
  return std::string(KP_CLI) + " curve --workload " + w +
         " --batches 8,16,32,64 --trials 8 --eval-samples 320 --budget-steps 1000 --budget-samples 16000"
         " --jobs " + std::to_string(jobs) + " --out " + out;
}

#ifdef KP_MPIEXEC
std::string mpirun(int ranks) {
  // Open MPI refuses to start as root unless told; CI containers run as root.
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  return std::string(KP_MPIEXEC) + " -np " + std::to_string(ranks) + " --oversubscribe --allow-run-as-root ";
}
#endif

// The trial rows without wall_s, and the provenance lines that do not depend on the run (all but
// the command, date and cost).
std::vector<std::string> records_of(const std::string& csv) {
  std::vector<std::string> out;
  std::istringstream in(slurp(csv));
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# provenance:", 0) == 0 || line.rfind("# date:", 0) == 0 || line.rfind("# cost:", 0) == 0) continue;
    out.push_back(line[0] == '#' ? line : line.substr(0, line.rfind(',')));
  }
  return out;
}

std::vector<std::string> lines_of(const std::string& path) {
  std::vector<std::string> out;
  std::istringstream in(slurp(path));
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

bool rank_files_left(const std::string& csv) {
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(csv).parent_path()))
    if (e.path().filename().string().find(".journal.") != std::string::npos) return true;
  return false;
}

}  // namespace

TEST(CurveMpi, ChainsGoLongestFirstToTheLeastLoadedRank) {
  CurveSearchSpec s;
  s.batches = {8, 16, 32, 64};
  s.base.max_steps = 1500;
  s.budget_steps = 1000, s.budget_samples = 16000;
  // Budgets min(1500, 1000 + ceil(16000/M)): 1500, 1500, 1500, 1250 steps; costs M x budget:
  // 12000, 24000, 48000, 80000 samples.
  using V = std::vector<std::vector<int64_t>>;
  EXPECT_EQ(assign_chains(s, 1), (V{{64, 32, 16, 8}}));
  EXPECT_EQ(assign_chains(s, 2), (V{{64}, {32, 16, 8}}));             // 80000 vs 84000
  EXPECT_EQ(assign_chains(s, 3), (V{{64}, {32}, {16, 8}}));           // 80000, 48000, 36000
  EXPECT_EQ(assign_chains(s, 5), (V{{64}, {32}, {16}, {8}, {}}));     // a rank may have none
}

TEST(CurveMpi, TwoRanksWriteTheRecordsOfOneProcessAndResumeAnyRanksJournals) {
#ifndef KP_MPIEXEC
  GTEST_SKIP() << "built without MPI (KP_WITH_MPI=OFF): install libopenmpi-dev openmpi-bin (tools/setup.sh)";
#else
  const std::string d = dir(), one = d + "/one.csv", two = d + "/two.csv", cut = d + "/cut.csv";
  ASSERT_EQ(run(curve_args(one, 2) + " > " + d + "/one.log 2>&1"), 0) << slurp(d + "/one.log");
  const std::vector<std::string> expected = records_of(one);
  ASSERT_GT(expected.size(), 32u);
  ASSERT_EQ(run(mpirun(2) + curve_args(two, 1) + " > " + d + "/two.out 2> " + d + "/two.err"), 0)
      << slurp(d + "/two.err");
  EXPECT_EQ(records_of(two), expected);
  const std::string log = slurp(d + "/two.err");
  // Both ranks ran chains (M x budget: rank 0 the 64 chain, rank 1 the other three).
  EXPECT_NE(log.find("rank 0: 8 trials of batches 64 in"), std::string::npos) << log;
  EXPECT_NE(log.find("rank 1: 24 trials of batches 32,16,8 in"), std::string::npos) << log;
  EXPECT_NE(slurp(two).find("[mpirun -np 2: rank 0 batches 64; rank 1 batches 32,16,8]"), std::string::npos);
  EXPECT_NE(slurp(d + "/two.out").find("wrote " + two + " (32 trials"), std::string::npos);
  // A finished run leaves what one process leaves: one journal of every trial.
  EXPECT_EQ(lines_of(two + ".journal").size(), 33u);
  EXPECT_FALSE(rank_files_left(two));

  // A killed run's journals: some trials in OUT.journal (one process), some in rank files of an
  // earlier -np 4 run, one torn line. Resumed with -np 2, the same records.
  const std::vector<std::string> j = lines_of(one + ".journal");
  ASSERT_EQ(j.size(), 33u);
  auto write = [&](const std::string& path, size_t from, size_t to, const std::string& torn) {
    std::ofstream f(path);
    f << j[0] << "\n";
    for (size_t i = from; i < to; ++i) f << j[i] << "\n";
    f << torn;
  };
  write(cut + ".journal", 1, 6, "");
  write(cut + ".journal.rank1", 6, 12, "");
  write(cut + ".journal.rank3", 12, 14, j[14].substr(0, 5));
  ASSERT_EQ(run(mpirun(2) + curve_args(cut, 1) + " > " + d + "/cut.out 2> " + d + "/cut.err"), 2);
  const std::string refused = slurp(d + "/cut.err");
  EXPECT_NE(refused.find(cut + ".journal: error: a journal of an earlier measurement exists: pass --resume"),
            std::string::npos) << refused;
  ASSERT_EQ(run(mpirun(2) + curve_args(cut, 1) + " --resume > " + d + "/cut.out 2> " + d + "/cut.err"), 0)
      << slurp(d + "/cut.err");
  EXPECT_EQ(records_of(cut), expected);
  EXPECT_EQ(lines_of(cut + ".journal").size(), 33u);
  EXPECT_FALSE(rank_files_left(cut));
  // 13 trials were journaled: only the other 19 ran (lines "rank R: batch ..." per new trial).
  const std::string resumed = slurp(d + "/cut.err");
  size_t ran = 0;
  for (size_t p = 0; (p = resumed.find("  lr ", p)) != std::string::npos; ++p) ++ran;
  EXPECT_EQ(ran, 19u) << resumed;
#endif
}

TEST(CurveMpi, StudyMeasuresAStaleCacheOnAllRanks) {
#ifndef KP_MPIEXEC
  GTEST_SKIP() << "built without MPI (KP_WITH_MPI=OFF): install libopenmpi-dev openmpi-bin (tools/setup.sh)";
#else
  const std::string d = dir() + "/study";
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  std::string w = kWorkload;
  w.replace(w.find("step_curve:"), std::string::npos,
            "step_curve: {source: measure, path: tiny_curve.csv, protocol: quick, seed: 1}\n");
  std::ofstream(d + "/tiny.yaml") << w;
  std::ofstream(d + "/study.yaml") << "name: tiny-measured\nworkload: tiny.yaml\nhardware: [" << KP_SOURCE_DIR
                                   << "/hw_configs/h100_cluster.yaml]\nbatches: {from: 16, to: 2048}\n"
                                      "learners: {from: 1, to: 16}\n";
  // The reference: the workload's cache as `kneepoint curve` measures it in one process.
  ASSERT_EQ(run(std::string(KP_CLI) + " curve --workload " + d + "/tiny.yaml --jobs 2 --out " + d +
                "/ref.csv > " + d + "/ref.log 2>&1"), 0) << slurp(d + "/ref.log");
  ASSERT_EQ(run(mpirun(2) + KP_CLI + " study " + d + "/study.yaml --out " + d + "/out --jobs 1 > " + d +
                "/study.out 2> " + d + "/study.err"), 0) << slurp(d + "/study.err");
  const std::string log = slurp(d + "/study.err");
  EXPECT_NE(log.find("tiny_curve.csv: stale or missing: measuring it on 2 ranks"), std::string::npos) << log;
  // Both ranks ran their share of the quick protocol's chains (8 trials per batch size), the
  // largest chain first onto the least loaded rank, by samples = M x budget(M) with budget
  // min(1500, 600 + ceil(300000 / M)): 2048 x 747 = 1.53e6 on rank 0; 1024 x 893 + 256 x 1500 +
  // 64 x 1500 + 16 x 1500 = 1.42e6 on rank 1.
  for (const char* share : {"rank 0: 8 trials of batches 2048 in",
                            "rank 1: 32 trials of batches 1024,256,64,16 in"})
    EXPECT_NE(log.find(share), std::string::npos) << share << "\n" << log;
  EXPECT_EQ(records_of(d + "/tiny_curve.csv"), records_of(d + "/ref.csv"));
  EXPECT_FALSE(slurp(d + "/out/report.md").empty());
#endif
}

TEST(CurveMpi, MpirunKilledWithSigkillResumesInOneProcess) {
#ifndef KP_MPIEXEC
  GTEST_SKIP() << "built without MPI (KP_WITH_MPI=OFF): install libopenmpi-dev openmpi-bin (tools/setup.sh)";
#else
  // Without pruning every trial runs to its target or budget: ~3 s of trials, time to be killed.
  const std::string d = dir(), ref = d + "/np_ref.csv", cut = d + "/np_cut.csv";
  ASSERT_EQ(run(curve_args(ref, 2) + " --no-prune > " + d + "/np_ref.log 2>&1"), 0) << slurp(d + "/np_ref.log");
  const std::string command = mpirun(2) + curve_args(cut, 1) + " --no-prune > " + d + "/np_cut.log 2>&1";
  const pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", ("exec " + command).c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // Trial lines in all journals of the run. A journal exists empty between its open and its
  // header's write: counting `size() - 1` wrapped around there, and the run was killed early.
  const auto trial_lines = [&](const std::string& f) {
    const size_t n = std::filesystem::exists(f) ? lines_of(f).size() : 0;
    return n > 0 ? n - 1 : 0;
  };
  const auto journaled = [&] {
    size_t n = trial_lines(cut + ".journal");
    for (const std::string& f : rank_files(cut)) n += trial_lines(f);
    return n;
  };
  const auto t0 = std::chrono::steady_clock::now();
  while (journaled() < 4 && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(120))
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the run ended before it could be killed";
  // The ranks notice that mpirun is gone and exit (within ~0.5 s here); wait until they have.
  // (`cs[v]`: the pattern must not match the command line of the shell that runs pgrep.)
  const std::string ranks_alive = "pgrep -f '" + cut.substr(0, cut.size() - 1) + "[v]' > /dev/null";
  while (run(ranks_alive) == 0 && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(130))
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(std::filesystem::exists(cut)) << "no curve before the end";
  const size_t before = journaled();
  EXPECT_GE(before, 4u);
  EXPECT_LT(before, 32u);
  EXPECT_FALSE(rank_files(cut).empty()) << "rank 1 journals in its own file";
  // One process resumes: it merges the rank files, runs only the missing trials, leaves one journal.
  ASSERT_EQ(run(curve_args(cut, 2) + " --no-prune --resume > " + d + "/np_resume.log 2>&1"), 0)
      << slurp(d + "/np_resume.log");
  EXPECT_EQ(records_of(cut), records_of(ref));
  EXPECT_TRUE(rank_files(cut).empty());
  EXPECT_EQ(lines_of(cut + ".journal").size(), 33u);
  EXPECT_EQ(slurp(cut).find("mpirun"), std::string::npos) << "the provenance is the one-process command";
#endif
}

}  // namespace kp
