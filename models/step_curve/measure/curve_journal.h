#pragma once
// The append-only trial journal of a curve measurement. Line 1: `# kneepoint curve journal <fp>`;
// then one line per finished trial: batch,trial,learning_rate,momentum,steps|inf,outcome,wall_s.
// Every append is written with one write(2) and fsync'ed, so a kill -9 leaves at most a torn last
// line, which open() drops (and truncates away) on resume.
#include <string>
#include <vector>

#include "models/step_curve/measure/curve_measure.h"

namespace kp {

class CurveJournal {
 public:
  // Creates the journal or, with resume, reads it (returned by records()). Throws ConfigError
  // when it exists without resume, or its fingerprint differs.
  CurveJournal(const std::string& path, const std::string& fingerprint, bool resume);
  ~CurveJournal();
  CurveJournal(const CurveJournal&) = delete;
  CurveJournal& operator=(const CurveJournal&) = delete;

  const std::vector<TrialRecord>& records() const { return m_records; }
  void append(const TrialRecord& record);  // not thread-safe: callers hold a lock

 private:
  std::string m_path;
  int m_fd = -1;
  std::vector<TrialRecord> m_records;
};

// What a journal file holds: nothing (absent or empty), or a header that does or does not match
// `fingerprint` and, if it does, the records of the lines after it, up to a torn or
// unparsable last line (torn by a kill: dropped); a bad line before the last is a ConfigError
// naming path:line. `end` is the byte offset just after the last record kept (or the header).
// (Named apart from the study journal's StudyJournalContents: one binary links both.)
struct CurveJournalContents {
  bool empty = true, matches = false;
  std::vector<TrialRecord> records;
  size_t end = 0;
};
CurveJournalContents read_journal(const std::string& path, const std::string& fingerprint);

std::string format_journal_line(const TrialRecord& r);
// Whether the journal at `path` starts with the header of `fingerprint` (false if unreadable).
bool journal_matches(const std::string& path, const std::string& fingerprint);
// False for a line that is not a record or has a field out of range (batch >= 1, trial >= 0,
// learning_rate > 0, momentum in [0, 1), steps >= 1 or inf as the outcome says, wall_s >= 0).
bool parse_journal_line(const std::string& line, TrialRecord& r);

}  // namespace kp
