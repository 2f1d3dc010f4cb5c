// The bad-input catalogue: every row of tests/data/bad_inputs/*.tsv runs `kneepoint ARGS` on a
// broken input and checks the exit code and the start of the first error line. A crash (signal,
// abort = 134), a hang (killed after the row's time limit) or a silent acceptance (exit 0) fails
// the row. One table per input area so that rows can be added without touching this file.
//
// Row format (tab-separated, '#' lines and blank lines ignored):
//   id <TAB> args <TAB> exit <TAB> message
// In args and message, {D} is tests/data/bad_inputs, {S} the source tree and {T} a scratch folder
// of the row's own. `message` must be a substring of the first stderr line that contains
// "error" (so a position prefix "{D}/x.yaml:3:7: error: chip.clock:" can be checked whole).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/scratch_dir.h"

namespace {

namespace fs = std::filesystem;

const std::string kDir = std::string(KP_SOURCE_DIR) + "/tests/data/bad_inputs";
constexpr int kTimeLimitS = 60;

struct Row {
  std::string table;
  int line = 0;
  std::string id, args, message;
  int exit_code = 0;
};

std::string substitute(std::string s, const std::string& scratch) {
  const std::pair<std::string, std::string> subs[] = {
      {"{D}", kDir}, {"{S}", KP_SOURCE_DIR}, {"{T}", scratch}};
  for (const auto& [from, to] : subs)
    for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
      s.replace(p, from.size(), to);
  return s;
}

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out(1);
  for (char c : line) {
    if (c == '\t') out.emplace_back();
    else out.back() += c;
  }
  return out;
}

std::vector<Row> load_rows() {
  std::vector<Row> rows;
  std::vector<fs::path> tables;
  for (const auto& e : fs::directory_iterator(kDir))
    if (e.path().extension() == ".tsv") tables.push_back(e.path());
  std::sort(tables.begin(), tables.end());
  for (const auto& t : tables) {
    std::ifstream in(t);
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
      ++n;
      if (line.empty() || line[0] == '#') continue;
      const auto f = split_tabs(line);
      Row r;
      r.table = t.filename().string();
      r.line = n;
      if (f.size() != 4) {
        r.id = "<malformed row>";
        r.exit_code = -999;
      } else {
        r.id = f[0];
        r.args = f[1];
        r.exit_code = std::stoi(f[2]);
        r.message = f[3];
      }
      rows.push_back(r);
    }
  }
  return rows;
}

std::string first_error_line(const std::string& err) {
  std::istringstream in(err);
  std::string line;
  while (std::getline(in, line))
    if (line.find("error") != std::string::npos) return line;
  return {};
}

TEST(BadInputCatalogue, EveryRowExitsAsExpectedWithItsMessage) {
  const auto rows = load_rows();
  const std::string root = kp::test::process_scratch_dir("bad_inputs");
  int checked = 0;
  for (const auto& r : rows) {
    SCOPED_TRACE(r.table + ":" + std::to_string(r.line) + " " + r.id);
    ASSERT_NE(r.exit_code, -999) << "a row needs 4 tab-separated fields";
    const std::string scratch = root + "/" + r.id;
    fs::create_directories(scratch);
    const std::string err = scratch + "/stderr.txt";
    const std::string cmd = "timeout -s KILL " + std::to_string(kTimeLimitS) + " " + KP_CLI + " " +
                            substitute(r.args, scratch) + " < /dev/null > " + scratch +
                            "/stdout.txt 2> " + err;
    const int status = std::system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(status)) << "killed by a signal: " << cmd;
    const int code = WEXITSTATUS(status);
    std::stringstream ss;
    ss << std::ifstream(err).rdbuf();
    EXPECT_NE(code, 137) << "hung (killed after " << kTimeLimitS << " s): " << cmd;
    EXPECT_NE(code, 134) << "aborted: " << ss.str();
    EXPECT_EQ(code, r.exit_code) << cmd << "\n" << ss.str();
    const std::string line = first_error_line(ss.str());
    EXPECT_NE(line.find(substitute(r.message, scratch)), std::string::npos)
        << "first error line: " << line << "\nexpected to contain: "
        << substitute(r.message, scratch);
    ++checked;
  }
  std::printf("bad-input catalogue: %d rows\n", checked);
  EXPECT_GE(checked, 60);
}

}  // namespace
