// The step curve is resolved only where N(M) is needed: `simulate` (and `validate`) on a workload
// whose `measure` cache is missing neither measures nor reads the cache, while `predict` on the
// same workload does try to measure (and here fails at once on the missing dataset).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace {

struct CliRun {
  int exit_code = -1;
  std::string out;
};

std::string scratch(const std::string& leaf) {
  const std::string dir = ::testing::TempDir() + "step_curve_lazy_" +
                          ::testing::UnitTest::GetInstance()->current_test_info()->name();
  ::mkdir(dir.c_str(), 0755);
  return dir + "/" + leaf;
}

CliRun run(const std::string& verb, const std::string& cache) {
  const std::string src(KP_SOURCE_DIR), out = scratch(verb + "_out.txt");
  // fmnist_mlp's curve is `source: measure`; the cache path points at nothing, and the dataset at
  // a folder that does not exist, so a measurement would fail within milliseconds.
  const std::string cmd = std::string(KP_CLI) + " " + verb + " --hw " + src + "/hw_configs/edge_npu.yaml --workload " +
                          src + "/workloads/fmnist_mlp.yaml --batch 64 --set workload.step_curve.path=" + cache +
                          " --set workload.dataset.path=/nonexistent/fmnist > " + out + " 2>&1";
  const int status = std::system(cmd.c_str());
  CliRun r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::stringstream ss;
  ss << std::ifstream(out).rdbuf();
  r.out = ss.str();
  return r;
}

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

TEST(StepCurveLazy, SimulateNeverMeasuresNorReadsTheCurveCache) {
  const std::string cache = scratch("missing_curve.csv");
  const CliRun r = run("simulate", cache);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("T_update"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("measuring"), std::string::npos) << r.out;
  EXPECT_FALSE(exists(cache));            // nothing measured or written
  EXPECT_FALSE(exists(cache + ".lock"));  // the cache was not even locked for a look
}

TEST(StepCurveLazy, PredictStillResolvesTheCurve) {
  const std::string cache = scratch("missing_curve.csv");
  const CliRun r = run("predict", cache);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("/nonexistent/fmnist/train-images-idx3-ubyte.gz"), std::string::npos) << r.out;
}

}  // namespace
