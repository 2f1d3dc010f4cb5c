#include "tools/study/study_journal.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/config_error.h"
#include "core/fd_io.h"

namespace kp {
namespace {

std::string crc_hex(const std::string& body) {
  const uLong crc = ::crc32(0L, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size()));
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08lx", static_cast<unsigned long>(crc));
  return buf;
}

// The body of an intact line ("<kind> <payload>"), or false.
bool check_line(const std::string& line, std::string& body) {
  const size_t star = line.rfind(" *");
  if (star == std::string::npos || line.size() - star != 10) return false;
  body = line.substr(0, star);
  return body.size() >= 2 && body[1] == ' ' && crc_hex(body) == line.substr(star + 2);
}

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void write_all(int fd, const std::string& text, const std::string& path) {
  if (!kp::write_all(fd, text))
    throw ConfigError(path, std::string("cannot write the journal: ") + std::strerror(errno));
}

}  // namespace

std::string journal_line(char kind, const std::string& payload) {
  const std::string body = std::string(1, kind) + " " + payload;
  return body + " *" + crc_hex(body) + "\n";
}

StudyJournalContents read_study_journal(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path, "cannot open the study journal (is this a study output folder?)");
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  StudyJournalContents c;
  size_t pos = 0, line_no = 0;
  while (pos < text.size()) {
    const size_t nl = text.find('\n', pos);
    ++line_no;
    std::string body;
    const bool intact = nl != std::string::npos && check_line(text.substr(pos, nl - pos), body);
    if (!intact) {
      const bool last = nl == std::string::npos || nl + 1 == text.size();
      if (!last)
        throw ConfigError({{path, static_cast<int>(line_no), 1, "",
                            line_no == 1 ? "not a kneepoint study journal (its first line fails its check)"
                                         : "corrupt journal: the line fails its check"}});
      c.torn_tail = true;  // a run killed while writing its last record: dropped, redone
      break;
    }
    const char kind = body[0];
    const std::string payload = body.substr(2);
    if (line_no == 1 && kind != 'H') throw ConfigError({{path, 1, 1, "", "not a kneepoint study journal"}});
    if (line_no > 1 && kind == 'H')
      throw ConfigError({{path, static_cast<int>(line_no), 1, "", "corrupt journal: a second header record"}});
    if (kind == 'H' && payload.empty())
      throw ConfigError({{path, static_cast<int>(line_no), 1, "", "corrupt journal: an empty header record"}});
    if (kind == 'H') c.header = payload;
    else if (kind == 'D') c.designs.push_back(payload), c.design_lines.push_back(line_no);
    else if (kind == 'V') c.verifies.push_back(payload), c.verify_lines.push_back(line_no);
    else throw ConfigError({{path, static_cast<int>(line_no), 1, "", "corrupt journal: unknown record kind"}});
    pos = nl + 1;
    c.good_bytes = pos;
  }
  if (c.header.empty() && !c.torn_tail) throw ConfigError(path, "empty study journal");
  return c;
}

StudyJournal::StudyJournal(const std::string& path, const std::string& header, bool resume) : m_path(path) {
  bool keep = false;
  if (resume && ::access(path.c_str(), F_OK) == 0) {
    m_resumed = read_study_journal(path);
    if (m_resumed.good_bytes > 0) {
      if (m_resumed.header != header)
        throw ConfigError(path, "this journal was written by another study (or its hardware, workload or "
                                "step-curve files changed since): run without --resume to start again");
      keep = true;
    }
  }
  if (!keep) m_resumed = StudyJournalContents();
  m_fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (m_fd < 0) throw ConfigError(path, std::string("cannot open the journal: ") + std::strerror(errno));
  const off_t size = keep ? static_cast<off_t>(m_resumed.good_bytes) : 0;
  if (::ftruncate(m_fd, size) != 0 || ::lseek(m_fd, size, SEEK_SET) < 0)
    throw ConfigError(path, std::string("cannot truncate the journal: ") + std::strerror(errno));
  if (!keep) write_all(m_fd, journal_line('H', header), m_path);
  sync();
}

StudyJournal::~StudyJournal() {
  if (m_fd < 0) return;
  ::fsync(m_fd);
  ::close(m_fd);
}

void StudyJournal::append(char kind, const std::string& payload) {
  const std::string line = journal_line(kind, payload);
  std::lock_guard<std::mutex> lock(m_mutex);
  write_all(m_fd, line, m_path);
  if (now_s() - m_last_sync_s >= 0.2) {
    ::fsync(m_fd);
    m_last_sync_s = now_s();
  }
}

void StudyJournal::sync() {
  if (::fsync(m_fd) != 0) throw ConfigError(m_path, std::string("cannot fsync the journal: ") + std::strerror(errno));
  m_last_sync_s = now_s();
}

}  // namespace kp
