#include "models/step_curve/measure/curve_journal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include "core/config_error.h"
#include "core/fd_io.h"

namespace kp {
namespace {

const std::string k_magic = "# kneepoint curve journal ";

TrialOutcome parse_outcome(const std::string& s, bool& ok) {
  for (TrialOutcome o : {TrialOutcome::reached, TrialOutcome::budget, TrialOutcome::diverged,
                         TrialOutcome::pruned})
    if (s == to_string(o)) return o;
  ok = false;
  return TrialOutcome::budget;
}

void write_all(int fd, const std::string& text, const std::string& path) {
  if (!kp::write_all(fd, text))
    throw ConfigError(path, std::string("cannot write the journal: ") + std::strerror(errno));
  if (::fsync(fd) != 0)
    throw ConfigError(path, std::string("cannot fsync the journal: ") + std::strerror(errno));
}

}  // namespace

std::string format_journal_line(const TrialRecord& r) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%lld,%d,%.17g,%.17g,%s,%s,%.6g\n",
                static_cast<long long>(r.batch), r.trial, r.learning_rate, r.momentum,
                r.steps ? std::to_string(*r.steps).c_str() : "inf", to_string(r.outcome), r.wall_s);
  return buf;
}

bool journal_matches(const std::string& path, const std::string& fingerprint) {
  std::ifstream in(path);
  std::string first;
  return std::getline(in, first) && first == k_magic + fingerprint;
}

bool parse_journal_line(const std::string& line, TrialRecord& r) {
  std::vector<std::string> f;
  std::stringstream ss(line);
  for (std::string item; std::getline(ss, item, ',');) f.push_back(item);
  if (f.size() != 7) return false;
  auto whole_int = [](const std::string& s, long long& v) {
    char* end = nullptr;
    errno = 0;
    v = std::strtoll(s.c_str(), &end, 10);
    return !s.empty() && *end == '\0' && errno == 0;
  };
  auto whole_double = [](const std::string& s, double& v) {
    char* end = nullptr;
    errno = 0;
    v = std::strtod(s.c_str(), &end);
    return !s.empty() && *end == '\0' && errno == 0 && std::isfinite(v);
  };
  long long batch = 0, trial = 0, steps = 0;
  // The ranges a trial can have (a hand-edited or foreign line is refused, not trusted).
  if (!whole_int(f[0], batch) || batch < 1) return false;
  if (!whole_int(f[1], trial) || trial < 0 || trial > 1000000) return false;
  if (!whole_double(f[2], r.learning_rate) || !(r.learning_rate > 0)) return false;
  if (!whole_double(f[3], r.momentum) || !(r.momentum >= 0 && r.momentum < 1)) return false;
  if (f[4] == "inf") {
    r.steps.reset();
  } else {
    if (!whole_int(f[4], steps) || steps < 1) return false;
    r.steps = steps;
  }
  bool ok = true;
  r.outcome = parse_outcome(f[5], ok);
  if (!whole_double(f[6], r.wall_s) || r.wall_s < 0) return false;
  r.batch = batch;
  r.trial = static_cast<int>(trial);
  return ok && (r.steps.has_value() == (r.outcome == TrialOutcome::reached));
}

CurveJournalContents read_journal(const std::string& path, const std::string& fingerprint) {
  CurveJournalContents c;
  std::ifstream in(path, std::ios::binary);
  if (!in) return c;
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string header = k_magic + fingerprint + "\n";
  c.empty = text.empty();
  c.matches = !c.empty && text.compare(0, header.size(), header) == 0;
  if (!c.matches) return c;
  c.end = header.size();
  int line_no = 1;
  for (size_t pos = header.size(); pos < text.size();) {
    const size_t nl = text.find('\n', pos);
    ++line_no;
    TrialRecord r;
    if (nl == std::string::npos || !parse_journal_line(text.substr(pos, nl - pos), r)) {
      // The last line may be torn (a kill during its write): that trial is redone. A bad line
      // with more after it is not a kill's doing, and dropping the rest would lose trials.
      if (nl != std::string::npos && nl + 1 < text.size())
        throw ConfigError({{path, line_no, 1, "",
                            "corrupt journal line: expected batch,trial,learning_rate,momentum,steps|inf,"
                            "outcome,wall_s with batch >= 1, trial >= 0, learning_rate > 0, momentum in [0, 1)"}});
      break;
    }
    c.records.push_back(r);
    pos = nl + 1;
    c.end = pos;
  }
  return c;
}

CurveJournal::CurveJournal(const std::string& path, const std::string& fingerprint, bool resume)
    : m_path(path) {
  const std::string header = k_magic + fingerprint + "\n";
  CurveJournalContents c = read_journal(path, fingerprint);
  off_t keep = 0;
  if (!c.empty) {
    if (!resume)
      throw ConfigError(path, "a journal of an earlier measurement exists: pass --resume to "
                              "continue it, or delete it to start over");
    if (!c.matches)
      throw ConfigError(path, "the journal was made with other settings (expected the first "
                              "line `" + header.substr(0, header.size() - 1) + "`)");
    keep = static_cast<off_t>(c.end);
    m_records = std::move(c.records);
  }
  m_fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (m_fd < 0) throw ConfigError(path, std::string("cannot open the journal: ") + std::strerror(errno));
  if (keep == 0) {
    if (::ftruncate(m_fd, 0) != 0 || ::lseek(m_fd, 0, SEEK_SET) < 0)
      throw ConfigError(path, "cannot reset the journal");
    write_all(m_fd, header, path);
  } else {
    if (::ftruncate(m_fd, keep) != 0 || ::lseek(m_fd, keep, SEEK_SET) < 0)
      throw ConfigError(path, "cannot truncate the torn end of the journal");
  }
}

CurveJournal::~CurveJournal() {
  if (m_fd >= 0) ::close(m_fd);
}

void CurveJournal::append(const TrialRecord& record) {
  write_all(m_fd, format_journal_line(record), m_path);
  m_records.push_back(record);
}

}  // namespace kp
