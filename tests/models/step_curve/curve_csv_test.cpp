#include "models/step_curve/curve_csv.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <sstream>

#include "core/config_error.h"

namespace kp {
namespace {

class CurveCsv : public ::testing::Test {
 protected:
  std::string write(const std::string& text) {
    const std::string path = (std::filesystem::temp_directory_path() /
                              ("kp_curve_" + std::to_string(::getpid()) + "_" +
                               ::testing::UnitTest::GetInstance()->current_test_info()->name() +
                               ".csv")).string();
    std::ofstream(path) << text;
    m_paths.push_back(path);
    return path;
  }
  void TearDown() override {
    for (const std::string& p : m_paths) std::filesystem::remove(p);
  }
  std::vector<std::string> m_paths;
};

TEST_F(CurveCsv, ReadsTrialsWithExtraColumnsCommentsAndFailures) {
  const std::string path = write(
      "# measured by: kneepoint curve --seed 1\n"
      "batch, lr ,steps,wall_s\n"
      "\n"
      "128,0.1,4000,12.5\n"
      "128,1.0,inf,3\n"
      "256 , 0.2 , 2100 , 7\n"
      "512,0.3,,1\n");
  const std::vector<CurvePoint> points = read_curve_csv(path);
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(points[0].batch, 128.0);
  EXPECT_EQ(points[0].steps, 4000.0);
  EXPECT_TRUE(std::isinf(points[1].steps));
  EXPECT_EQ(points[2].batch, 256.0);
  EXPECT_EQ(points[2].steps, 2100.0);
  EXPECT_TRUE(std::isinf(points[3].steps));
}

TEST_F(CurveCsv, ErrorsNameFileLineAndColumnAndAreCollected) {
  const std::string path = write(
      "batch,steps\n"
      "128,4000\n"
      "abc,100\n"
      "256,-3\n"
      "512\n");
  try {
    read_curve_csv(path);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    ASSERT_EQ(e.diagnostics().size(), 3u) << e.what();
    EXPECT_EQ(e.diagnostics()[0].line, 3);
    EXPECT_EQ(e.diagnostics()[0].col, 1);
    EXPECT_EQ(e.diagnostics()[0].key, "batch");
    EXPECT_EQ(e.diagnostics()[1].line, 4);
    EXPECT_EQ(e.diagnostics()[1].col, 5);
    EXPECT_EQ(e.diagnostics()[2].line, 5);  // a row of the wrong shape
    EXPECT_NE(std::string(e.what()).find(path + ":4:5: error: steps: "), std::string::npos) << e.what();
  }
}

TEST_F(CurveCsv, MissingColumnOrFileIsAConfigError) {
  try {
    read_curve_csv(write("# provenance\nbatch,iterations\n1,2\n"));
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.diagnostics().at(0).line, 2);  // the header line
    EXPECT_NE(std::string(e.what()).find("`steps`"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_curve_csv("/nonexistent/curve.csv"), ConfigError);
  EXPECT_THROW(read_curve_csv(write("")), ConfigError);
}

TEST_F(CurveCsv, WriterRoundTrips) {
  const std::vector<CurvePoint> points = {{128, 4000}, {256, 2100.25}, {512, 1000.0 / 3.0},
                                          {1024, std::numeric_limits<double>::infinity()}};
  std::ostringstream text;
  write_curve_csv(text, points, "source: test\nseed: 1");
  EXPECT_EQ(text.str().substr(0, 32), "# source: test\n# seed: 1\nbatch,s");
  const std::vector<CurvePoint> back = read_curve_csv(write(text.str()));
  ASSERT_EQ(back.size(), points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    EXPECT_EQ(back[i].batch, points[i].batch);
    EXPECT_EQ(back[i].steps, points[i].steps);
  }
}

}  // namespace
}  // namespace kp
