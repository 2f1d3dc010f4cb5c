#pragma once
// Progress of a long run on stderr. Contract: on a terminal (isatty) a one-line bar redrawn in
// place at most 10 times a second: done/total, percent, rate and ETA; otherwise (a log, CI) a
// plain line at most every `plain_interval_s` and at the end. Not thread-safe: one caller.
#include <cstddef>
#include <cstdio>
#include <string>

namespace kp {

class Progress {
 public:
  // `already` items were done before this run started (resume): they count as done, not in the rate.
  Progress(std::FILE* out, std::string what, size_t total, size_t already, double plain_interval_s = 5.0);
  void tick(size_t n = 1);
  void finish();
  // The text of one update (also what tests check): "12/40 design points (30%), 5.1/s, ETA 5 s".
  static std::string line(size_t done, size_t total, double rate_per_s, const std::string& what);

 private:
  void draw(bool final);

  std::FILE* m_out;
  std::string m_what;
  size_t m_total, m_already, m_done;
  bool m_tty;
  double m_interval_s, m_start_s, m_last_s = -1;
};

}  // namespace kp
