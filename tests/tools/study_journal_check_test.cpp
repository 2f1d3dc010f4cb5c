// The study journal's payload check: a record whose CRC holds but whose payload is cut short, has
// a count that exceeds it, a bad escape, or an index outside the study is one ConfigError naming
// the journal's line (from load_study_result, and exit 2 from `kneepoint report`), never another
// exception, a bad_alloc or an abort.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/config_error.h"
#include "tests/scratch_dir.h"
#include "tools/study/study_journal.h"
#include "tools/study/study_runner.h"

namespace kp {
namespace {

const std::string kSrc = KP_SOURCE_DIR;

std::string slurp(const std::string& path) {
  std::stringstream ss;
  ss << std::ifstream(path, std::ios::binary).rdbuf();
  return ss.str();
}

struct Record {
  char kind;
  std::string payload;
};

// The quickstart study's journal as records (run once per process).
const std::vector<Record>& quickstart_records() {
  static const std::vector<Record> records = [] {
    const std::string dir = test::process_scratch_dir("kp_journal_check") + "/ref";
    const std::string cmd = std::string(KP_CLI) + " study " + kSrc + "/studies/quickstart.yaml --out " + dir +
                            " > /dev/null 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0);
    std::vector<Record> out;
    std::istringstream in(slurp(dir + "/study.journal"));
    for (std::string line; std::getline(in, line);)
      out.push_back({line[0], line.substr(2, line.rfind(" *") - 2)});
    return out;
  }();
  return records;
}

// Writes the records with record `at` replaced by `payload` (CRCs recomputed) and loads it.
// Returns the error text, or "" if it loaded.
std::string load_with(size_t at, const std::string& payload, const std::string& name) {
  const std::string dir = test::process_scratch_dir("kp_journal_check") + "/" + name;
  (void)std::system(("mkdir -p " + dir).c_str());
  std::string text;
  const std::vector<Record>& r = quickstart_records();
  for (size_t i = 0; i < r.size(); ++i) text += journal_line(r[i].kind, i == at ? payload : r[i].payload);
  std::ofstream(dir + "/study.journal", std::ios::binary) << text;
  try {
    (void)load_study_result(dir);
    return "";
  } catch (const ConfigError& e) {
    return e.what();
  }  // any other exception fails the test
}

std::vector<std::string> tokens(const std::string& payload) {
  std::vector<std::string> t;
  std::istringstream in(payload);
  for (std::string s; in >> s;) t.push_back(s);
  return t;
}

std::string join(const std::vector<std::string>& t, size_t n) {
  std::string s;
  for (size_t i = 0; i < n && i < t.size(); ++i) s += (i ? " " : "") + t[i];
  return s;
}

TEST(StudyJournalCheck, TruncatedPayloadsAreAnErrorAtTheirLine) {
  const std::vector<Record>& r = quickstart_records();
  ASSERT_GE(r.size(), 3u);
  ASSERT_EQ(load_with(r.size(), "", "intact"), "");  // the untouched journal loads
  for (size_t at : {size_t{0}, size_t{1}, r.size() - 1}) {
    const std::vector<std::string> t = tokens(r[at].payload);
    // Every cut of a short prefix, then every 29th: each is an error naming line at + 1.
    for (size_t n = 0; n < t.size(); n += n < 6 ? 1 : 29) {
      SCOPED_TRACE("record " + std::to_string(at) + " cut to " + std::to_string(n) + " tokens");
      const std::string err = load_with(at, join(t, n), "cut");
      EXPECT_NE(err.find("/study.journal:" + std::to_string(at + 1) + ":1: error: "), std::string::npos) << err;
    }
  }
}

TEST(StudyJournalCheck, OutOfRangeFieldsAreAnErrorAtTheirLine) {
  const std::vector<Record>& r = quickstart_records();
  std::vector<std::string> t = tokens(r[1].payload);  // a design: index name hw file workload ...
  struct Case {
    size_t token;
    std::string value, message;
  } cases[] = {
      {0, "8", "design index 8 is outside the study's 8 design points"},
      {0, "-1", "expected a count or index >= 0, got -1"},
      {0, "99999999999999999999", "expected an integer"},
      {4, "7", "workload index 7 is outside the study's 2 workloads"},
      {5, "1000000000", "a count of 1000000000 items exceeds the record"},  // overrides
      {1, "bad%zzname", "bad escape"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> m = t;
    m[c.token] = c.value;
    const std::string err = load_with(1, join(m, m.size()), "range");
    EXPECT_NE(err.find("/study.journal:2:1: error: corrupt journal record: " + c.message), std::string::npos)
        << c.value << ": " << err;
  }
  // A header that does not decode.
  std::vector<std::string> h = tokens(r[0].payload);
  const std::string err = load_with(0, h[0] + " x", "header");
  EXPECT_NE(err.find("/study.journal:1:1: error: corrupt journal record: "), std::string::npos) << err;
}

TEST(StudyJournalCheck, ReportOnACorruptRecordExits2NamingTheLine) {
  const std::vector<Record>& r = quickstart_records();
  (void)load_with(2, join(tokens(r[2].payload), 9), "cli");
  const std::string dir = test::process_scratch_dir("kp_journal_check") + "/cli";
  const std::string cmd = std::string(KP_CLI) + " report " + dir + " > " + dir + "/out.txt 2>&1";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);
  EXPECT_NE(slurp(dir + "/out.txt").find(dir + "/study.journal:3:1: error: corrupt journal record: "),
            std::string::npos)
      << slurp(dir + "/out.txt");
}

TEST(StudyJournalCheck, ResumeOnACorruptRecordExits2NamingTheLine) {
  const std::vector<Record>& r = quickstart_records();
  (void)load_with(1, join(tokens(r[1].payload), 5), "resume");
  const std::string dir = test::process_scratch_dir("kp_journal_check") + "/resume";
  const std::string cmd = std::string(KP_CLI) + " study " + kSrc + "/studies/quickstart.yaml --out " + dir +
                          " --resume > " + dir + "/out.txt 2>&1";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);
  EXPECT_NE(slurp(dir + "/out.txt").find(dir + "/study.journal:2:1: error: corrupt journal record: "),
            std::string::npos)
      << slurp(dir + "/out.txt");
}

}  // namespace
}  // namespace kp
