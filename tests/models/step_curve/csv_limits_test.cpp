// The CSV readers' limits and checks that a small catalogue file cannot show: a 100 MB curve is
// refused quickly (it hung in the fit), a quoted field is read, and the curve journal refuses a
// bad line before its last while dropping a torn last one.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/config_error.h"
#include "models/step_curve/csv_table.h"
#include "models/step_curve/curve_csv.h"
#include "models/step_curve/measure/curve_journal.h"
#include "models/step_curve/pollux_trace.h"
#include "tests/scratch_dir.h"

namespace kp {
namespace {

std::string dir() { return test::process_scratch_dir("kp_csv_limits"); }

std::string write(const std::string& name, const std::string& text) {
  const std::string p = dir() + "/" + name;
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

TEST(CsvLimits, AHundredMegabyteCurveIsRefusedQuickly) {
  const std::string p = dir() + "/big.csv";
  {
    std::ofstream out(p, std::ios::binary);
    out << "batch,steps\n";
    std::string block;
    for (int i = 0; i < 100000; ++i) block += std::to_string(16 + i % 4096) + "," + std::to_string(900 + i) + "\n";
    while (out.tellp() < 100 * 1000 * 1000) out << block;
  }
  const auto t0 = std::chrono::steady_clock::now();
  try {
    read_curve_csv(p);
    FAIL() << "accepted a 100 MB curve";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("larger than 16 MiB"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
}

TEST(CsvLimits, MoreRowsThanTheLimitIsAnErrorAtTheFirstRowOver) {
  std::string text = "batch,steps\n";
  for (size_t i = 0; i <= kMaxCsvRows; ++i) text += "1,2\n";
  try {
    read_csv_table(write("rows.csv", text));
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.diagnostics().at(0).line, static_cast<int>(kMaxCsvRows) + 2);
  }
}

TEST(CsvLimits, QuotedFieldsAsKneepointWritesThemAreRead) {
  const auto points = read_curve_csv(write("q.csv", "batch,note,steps\n16,\"lr 0.1, wd 0\",900\n\"32\",x,\"450\"\n"));
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0].steps, 900.0);
  EXPECT_EQ(points[1].batch, 32.0);
}

TEST(CsvLimits, PolluxRowsKeepTheirLine) {
  const std::string d = dir() + "/pollux";
  std::filesystem::create_directories(d);
  std::ofstream(d + "/validation-64.csv") << "progress,iteration,metric,grad_sqr,grad_var\n"
                                             "# comment\n10,10,0.5,2,1\n20,20,0.7,1.5,1\n";
  const auto runs = read_pollux_traces(d);
  ASSERT_EQ(runs.at(0).rows.size(), 2u);
  EXPECT_EQ(runs[0].rows[1].line, 4);
  EXPECT_EQ(pollux_step_curve(runs, 0.6).at(0).steps, 20.0);
}

TEST(CurveJournalRead, BadLineBeforeTheLastIsAnErrorTornLastLineIsDropped) {
  TrialRecord r;
  r.batch = 16, r.trial = 0, r.learning_rate = 0.1, r.momentum = 0.9, r.steps = 120;
  r.outcome = TrialOutcome::reached, r.wall_s = 0.5;
  const std::string header = "# kneepoint curve journal fp\n", good = format_journal_line(r);
  const std::string torn = write("torn.journal", header + good + "16,1,0.1");
  const CurveJournalContents c = read_journal(torn, "fp");
  EXPECT_TRUE(c.matches);
  EXPECT_EQ(c.records.size(), 1u);
  EXPECT_EQ(c.end, header.size() + good.size());
  const std::string bad = write("bad.journal", header + good + "16,1,-0.1,0.9,inf,budget,1\n" + good);
  try {
    read_journal(bad, "fp");
    FAIL() << "a bad middle line dropped the trials after it";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(bad + ":3:1: error: corrupt journal line"), std::string::npos) << e.what();
  }
  TrialRecord x;
  EXPECT_FALSE(parse_journal_line("0,1,0.1,0.9,inf,budget,1", x));      // batch 0
  EXPECT_FALSE(parse_journal_line("16,-1,0.1,0.9,inf,budget,1", x));    // negative trial
  EXPECT_FALSE(parse_journal_line("16,1,0.1,1.5,inf,budget,1", x));     // momentum >= 1
  EXPECT_FALSE(parse_journal_line("16,1,0.1,0.9,0,reached,1", x));      // zero steps
  EXPECT_FALSE(parse_journal_line("16,1,nan,0.9,inf,budget,1", x));     // NaN learning rate
  EXPECT_FALSE(parse_journal_line("16,1,0.1x,0.9,inf,budget,1", x));    // trailing text
  EXPECT_TRUE(parse_journal_line("16,1,0.1,0.9,inf,budget,1", x));
}

}  // namespace
}  // namespace kp
