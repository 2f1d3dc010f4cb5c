#include "tools/study/progress.h"

#include <unistd.h>

#include <chrono>
#include <cmath>

namespace kp {
namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string duration_text(double s) {
  char buf[32];
  if (!std::isfinite(s)) return "?";
  if (s < 60) std::snprintf(buf, sizeof buf, "%.0f s", s);
  else if (s < 3600) std::snprintf(buf, sizeof buf, "%d min %02d s", static_cast<int>(s / 60), static_cast<int>(s) % 60);
  else std::snprintf(buf, sizeof buf, "%d h %02d min", static_cast<int>(s / 3600), static_cast<int>(s / 60) % 60);
  return buf;
}

}  // namespace

Progress::Progress(std::FILE* out, std::string what, size_t total, size_t already, double plain_interval_s)
    : m_out(out), m_what(std::move(what)), m_total(total), m_already(already), m_done(already),
      m_tty(out && ::isatty(fileno(out))), m_interval_s(plain_interval_s), m_start_s(now_s()) {}

std::string Progress::line(size_t done, size_t total, double rate_per_s, const std::string& what) {
  const double pct = total ? 100.0 * static_cast<double>(done) / static_cast<double>(total) : 100.0;
  const double eta = rate_per_s > 0 ? static_cast<double>(total - done) / rate_per_s : INFINITY;
  char buf[160];
  std::snprintf(buf, sizeof buf, "%zu/%zu %s (%.0f%%), %.3g/s, ETA %s", done, total, what.c_str(), pct, rate_per_s,
                done == total ? "0 s" : duration_text(eta).c_str());
  return buf;
}

void Progress::tick(size_t n) {
  m_done += n;
  const double t = now_s();
  if (t - m_last_s >= (m_tty ? 0.1 : m_interval_s)) draw(false);
}

void Progress::finish() { draw(true); }

void Progress::draw(bool final) {
  if (!m_out) return;
  const double t = now_s();
  m_last_s = t;
  const double elapsed = t - m_start_s;
  const double rate = elapsed > 0 ? static_cast<double>(m_done - m_already) / elapsed : 0;
  const std::string text = line(m_done, m_total, rate, m_what);
  if (m_tty) {
    constexpr int kWidth = 30;
    const int filled = m_total ? static_cast<int>(kWidth * static_cast<double>(m_done) / static_cast<double>(m_total)) : kWidth;
    std::string bar(static_cast<size_t>(filled), '=');
    if (filled < kWidth) bar += '>' + std::string(static_cast<size_t>(kWidth - filled - 1), ' ');
    std::fprintf(m_out, "\r[%s] %s\033[K%s", bar.c_str(), text.c_str(), final ? "\n" : "");
  } else {
    std::fprintf(m_out, "%s%s\n", text.c_str(), final ? (", done in " + duration_text(elapsed)).c_str() : "");
  }
  std::fflush(m_out);
}

}  // namespace kp
