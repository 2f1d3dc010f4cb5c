#pragma once
// The journal of a study run, DIR/study.journal: one self-checking record per line,
//   <kind> <payload> *<crc32 of "<kind> <payload>", 8 hex digits>
// kind H (first line: fingerprint and study header), D (a finished design point), V (a SystemC
// verification). Every record is one write(2) as soon as it is known, so a kill -9 loses nothing
// written; fsync runs at most every 0.2 s and at close (a power loss loses at most that window).
// Contract: a torn last line (no newline, or a CRC mismatch on the last line) is dropped and
// truncated away on resume; a bad line before the last is a corrupt journal (ConfigError).
#include <mutex>
#include <string>
#include <vector>

namespace kp {

// (Named apart from the curve journal's CurveJournalContents: one binary links both.)
struct StudyJournalContents {
  std::string header;                   // the H payload
  std::vector<std::string> designs;     // D payloads, in the order written
  std::vector<std::string> verifies;    // V payloads
  std::vector<size_t> design_lines, verify_lines;  // 1-based line of each, for messages
  size_t good_bytes = 0;                // length of the intact prefix
  bool torn_tail = false;
};

// Reads a journal; ConfigError if it is missing, not a study journal, or corrupt before its end.
// Checks each line's CRC only; check_study_journal() (study_journal_check.h) checks the payloads.
StudyJournalContents read_study_journal(const std::string& path);

class StudyJournal {
 public:
  // Without resume (or when there is no journal yet) starts a new one holding only `header`;
  // with resume keeps the intact records of an existing one whose header equals `header`
  // (ConfigError otherwise: the study or its files changed).
  StudyJournal(const std::string& path, const std::string& header, bool resume);
  ~StudyJournal();
  StudyJournal(const StudyJournal&) = delete;
  StudyJournal& operator=(const StudyJournal&) = delete;

  const StudyJournalContents& resumed() const { return m_resumed; }
  void append(char kind, const std::string& payload);  // thread-safe
  void sync();                                         // fsync now

 private:
  std::string m_path;
  int m_fd = -1;
  double m_last_sync_s = 0;
  std::mutex m_mutex;
  StudyJournalContents m_resumed;
};

// "<kind> <payload> *<crc>\n"
std::string journal_line(char kind, const std::string& payload);

}  // namespace kp
