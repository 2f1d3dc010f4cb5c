// kneepoint train end to end on a tiny synthetic workload: the JSON fields (steps to target or
// null, the validation curve at every --eval-every step, wall and update times), and exit code 2
// with the file named for a missing dataset, and with the option named for a bad value.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace {

const char* kNetwork = R"(name: tiny-mlp
input: {channels: 1, height: 4, width: 4}
classes: 3
network:
  - {kind: flatten}
  - {kind: dense, units: 8}
  - {kind: relu}
  - {kind: dense, units: 3}
  - {kind: softmax_cross_entropy}
optimizer: {kind: nesterov, learning_rate: 0.05, momentum: 0.9}
target: {validation_error: 0.05, eval_every: 20, max_steps: 60}
step_curve: {source: law, n_inf: 100, alpha: 1000}
)";

// ctest runs the tests of this file as concurrent processes sharing TempDir(): every file is named
// after its test so that two tests never write or read each other's files.
std::string test_name() { return ::testing::UnitTest::GetInstance()->current_test_info()->name(); }

std::string write_workload(const std::string& name, const std::string& dataset) {
  const std::string path = ::testing::TempDir() + "train_cli_" + test_name() + "_" + name + ".yaml";
  std::ofstream(path) << kNetwork << dataset;
  return path;
}

struct CliRun {
  int exit_code = -1;
  std::string out;
};

CliRun run(const std::string& args) {
  const std::string out = ::testing::TempDir() + "train_cli_" + test_name() + "_out.txt";
  const int status = std::system((std::string(KP_CLI) + " train " + args + " > " + out + " 2>&1").c_str());
  CliRun r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::stringstream ss;
  ss << std::ifstream(out).rdbuf();
  r.out = ss.str();
  return r;
}

int count(const std::string& s, const std::string& what) {
  int n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

double number_after(const std::string& s, const std::string& key) {
  const size_t p = s.find("\"" + key + "\": ");
  EXPECT_NE(p, std::string::npos) << key;
  return p == std::string::npos ? -1 : std::stod(s.substr(p + key.size() + 4));
}

TEST(TrainCli, JsonWithoutReachingTheTargetHasNullAndTheWholeCurve) {
  const std::string w = write_workload("synthetic", "dataset: {kind: synthetic}\n");
  // A learning rate of 1e-6 leaves the 3-class network near chance: never the perfect validation
  // that a target of 0 asks for.
  const CliRun r = run("--workload " + w + " --batch 16 --lr 1e-6 --target-error 0 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("\"steps_to_target\": null"), std::string::npos) << r.out;
  EXPECT_EQ(number_after(r.out, "steps"), 60);
  EXPECT_EQ(count(r.out, "\"validation_error\": "), 3);  // steps 20, 40, 60
  EXPECT_NE(r.out.find("{\"step\": 20,"), std::string::npos);
  EXPECT_NE(r.out.find("{\"step\": 60,"), std::string::npos);
  EXPECT_GT(number_after(r.out, "wall_time_s"), 0);
  EXPECT_GT(number_after(r.out, "mean_update_s"), 0);
  EXPECT_LE(number_after(r.out, "mean_update_s") * 60, number_after(r.out, "wall_time_s"));
}

TEST(TrainCli, JsonReachingTheTargetStopsThere) {
  const std::string w = write_workload("synthetic", "dataset: {kind: synthetic}\n");
  // Any error <= 1 meets this target: the first evaluation (step 10) stops the trial.
  const CliRun r = run("--workload " + w + " --batch 8 --lr 0.05 --target-error 1 --eval-every 10"
                    " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(number_after(r.out, "steps_to_target"), 10);
  EXPECT_EQ(number_after(r.out, "steps"), 10);
  EXPECT_EQ(count(r.out, "\"validation_error\": "), 1);
}

TEST(TrainCli, MissingDatasetFileIsExitTwoNamingTheFile) {
  const std::string w = write_workload(
      "missing", "dataset: {kind: fashion_mnist, path: /nonexistent/fmnist}\n");
  const CliRun r = run("--workload " + w + " --batch 16 --lr 0.05");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("/nonexistent/fmnist/train-images-idx3-ubyte.gz"), std::string::npos)
      << r.out;
}

// `none` is a valid dataset for the simulator, not for the trainer: the error points at the kind.
TEST(TrainCli, DatasetWithoutDataIsExitTwoAtItsKind) {
  const std::string w = write_workload("none", "dataset: {kind: none}\n");
  const CliRun r = run("--workload " + w + " --batch 16 --lr 0.05");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find(w + ":13:17: error: dataset.kind: \"none\" has no data the trainer can read"),
            std::string::npos)
      << r.out;
}

TEST(TrainCli, BadOptimizerIsExitTwo) {
  const std::string w = write_workload("synthetic", "dataset: {kind: synthetic}\n");
  const CliRun r = run("--workload " + w + " --batch 16 --lr 0.05 --optimizer adam");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("--optimizer"), std::string::npos) << r.out;
}

// Each of these once trained silently: Boost reads "-1" into an unsigned seed as 2^64 - 1, NaN
// passed the momentum's range test, and the target error was not checked at all.
TEST(TrainCli, OutOfRangeValuesAreExitTwoNamingTheOption) {
  const std::string w = write_workload("synthetic", "dataset: {kind: synthetic}\n");
  const std::string base = "--workload " + w + " --batch 16 --steps 1 ";
  const struct {
    const char* args;
    const char* option;
  } cases[] = {{"--lr 0.05 --seed -1", "--seed"},
               {"--lr inf", "--lr"},
               {"--lr nan", "--lr"},
               {"--lr 0.05 --momentum nan", "--momentum"},
               {"--lr 0.05 --momentum 1", "--momentum"},
               {"--lr 0.05 --target-error 2", "--target-error"},
               {"--lr 0.05 --target-error -0.1", "--target-error"},
               {"--lr 0.05 --target-error nan", "--target-error"},
               {"--lr 0.05 --optimizer sgd --momentum 0.9", "--momentum"}};
  for (const auto& c : cases) {
    const CliRun r = run(base + c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(std::string(c.option) + ": error: "), std::string::npos)
        << c.args << "\n" << r.out;
  }
  // A batch larger than the training split (the synthetic one has 4096 samples).
  const CliRun big = run("--workload " + w + " --batch 4097 --lr 0.05 --steps 1");
  EXPECT_EQ(big.exit_code, 2) << big.out;
  EXPECT_NE(big.out.find("--batch: error: expected at most the training split's 4096 samples"),
            std::string::npos)
      << big.out;
  EXPECT_EQ(run("--workload " + w + " --batch 4096 --lr 0.05 --steps 1").exit_code, 0);
  EXPECT_EQ(run(base + "--lr 0.05 --seed 0").exit_code, 0);  // the edges of the ranges pass
  EXPECT_EQ(run(base + "--lr 0.05 --momentum 0 --target-error 1").exit_code, 0);
}

// Plain SGD has no momentum: the workload's (Nesterov's 0.9) is not reported as if it applied.
TEST(TrainCli, PlainSgdReportsNoMomentum) {
  const std::string w = write_workload("synthetic", "dataset: {kind: synthetic}\n");
  const CliRun r = run("--workload " + w + " --batch 16 --steps 20 --lr 0.05 --optimizer sgd"
                       " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(number_after(r.out, "momentum"), 0) << r.out;
  EXPECT_EQ(run("--workload " + w + " --batch 16 --steps 20 --lr 0.05 --optimizer sgd"
                " --momentum 0").exit_code, 0);
}

}  // namespace
