// mpirun -np 2 kneepoint study: the ranks share the design points, rank 0 gathers and writes,
// and every output is byte-identical to a single-process run.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace kp {
namespace {

const std::string kSrc = KP_SOURCE_DIR;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int run(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST(StudyMpi, TwoRanksWriteExactlyWhatOneProcessWrites) {
#ifndef KP_MPIEXEC
  GTEST_SKIP() << "built without MPI (KP_WITH_MPI=OFF)";
#else
  // Open MPI refuses to start as root unless told; CI containers run as root.
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  const std::string dir = ::testing::TempDir() + "kp_mpi_" + std::to_string(::getpid());
  (void)run("rm -rf " + dir + " && mkdir -p " + dir);
  const std::string study = dir + "/sweep.yaml";
  // Two workloads x two systems x a 3 x 2 sweep = 24 design points; the top 2 of each workload
  // are verified in SystemC (forked, after MPI_Finalize, on rank 0).
  std::ofstream(study) << "name: mpi-equality\n"
                          "workloads: [" << kSrc << "/workloads/fmnist_mlp.yaml, " << kSrc
                       << "/workloads/resnet18_cifar10.yaml]\n"
                          "hardware: [" << kSrc << "/hw_configs/tpu_v3_pod.yaml, " << kSrc
                       << "/hw_configs/h100_cluster.yaml]\n"
                          "sweep:\n"
                          "  chip.memory.sram.capacity: [8 MiB, 16 MiB, 32 MiB]\n"
                          "  chip.clock: [1 GHz, 1.5 GHz]\n"
                          "batches: {from: 16, to: 16384}\n"
                          "learners: {from: 1, to: 256}\n"
                          "objectives: [time, energy]\n"
                          "verify_top: 2\n";
  const std::string one = dir + "/one", two = dir + "/two";
  ASSERT_EQ(run(std::string(KP_CLI) + " study " + study + " --out " + one + " --jobs 2 > /dev/null 2>&1"), 0);
  ASSERT_EQ(run(std::string(KP_MPIEXEC) + " -np 2 --oversubscribe --allow-run-as-root " + KP_CLI + " study " + study +
                " --out " + two + " --jobs 1 > " + dir + "/mpi.out 2> " + dir + "/mpi.err"),
            0)
      << slurp(dir + "/mpi.err");
  for (const char* f : {"report.md", "points.csv", "summary.json", "report.html"}) {
    const std::string a = slurp(one + "/" + f);
    EXPECT_FALSE(a.empty()) << f;
    EXPECT_EQ(slurp(two + "/" + f), a) << f;
  }
  // Both ranks did work: rank 0 logs how many points each evaluated (12 each: every 2nd point).
  const std::string log = slurp(dir + "/mpi.err");
  EXPECT_NE(log.find("design points evaluated: rank 0: 12, rank 1: 12"), std::string::npos) << log;
  EXPECT_NE(log.find("1 jobs x 2 processes"), std::string::npos) << log;
#endif
}

}  // namespace kp
