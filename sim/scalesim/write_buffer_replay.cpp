#include "sim/scalesim/write_buffer_replay.h"

#include <algorithm>
#include <stdexcept>

#include "core/int_math.h"

namespace kp {

WriteBufferReplay::WriteBufferReplay(int64_t sram_words, int64_t bandwidth_words_per_cycle)
    : m_total(sram_words), m_bw(bandwidth_words_per_cycle) {
  if (sram_words < 2 || bandwidth_words_per_cycle < 1) {
    throw std::invalid_argument("WriteBufferReplay: sram_words must be >= 2, bandwidth >= 1");
  }
  m_active = ceil_div(sram_words, 2);  // wr_buf_active_frac = 0.5 (single_layer_sim.py)
  m_drain = sram_words - m_active;
  m_free = sram_words;
  m_partial_line.reserve(64), m_partial_words.reserve(64);
}

void WriteBufferReplay::store(int64_t n) {
  m_free -= n;
  m_open_words += n;
  m_lines += m_open_words / m_bw;
  m_open_words %= m_bw;
}

void WriteBufferReplay::close_line() {
  if (m_open_words == 0) return;
  if (m_partial_head > 0 && m_partial_head * 2 >= m_partial_line.size()) {  // drop drained entries
    m_partial_line.erase(m_partial_line.begin(), m_partial_line.begin() + static_cast<long>(m_partial_head));
    m_partial_words.erase(m_partial_words.begin(), m_partial_words.begin() + static_cast<long>(m_partial_head));
    m_partial_head = 0;
  }
  m_partial_line.push_back(m_lines);
  m_partial_words.push_back(m_open_words);
  ++m_lines;
  m_open_words = 0;
}

int64_t WriteBufferReplay::drain(int64_t now) {
  const int64_t n = std::min(ceil_div(m_drain, m_bw), m_lines - m_next_line);
  if (n <= 0) return now;  // SCALE-Sim would index an empty trace here; unreachable in practice
  const int64_t last = m_next_line + n - 1;
  while (m_partial_head < m_partial_line.size() && m_partial_line[m_partial_head] < last) ++m_partial_head;
  int64_t last_words = m_bw;
  if (m_partial_head < m_partial_line.size() && m_partial_line[m_partial_head] == last) {
    last_words = m_partial_words[m_partial_head++];
  }
  // empty_drain_buf: lines x bandwidth, less the null slots of the last line only.
  m_free += (n - 1) * m_bw + last_words;
  m_next_line += n;
  return now + n - 1;  // one line per cycle, write port latency 0
}

int64_t WriteBufferReplay::write_line(int64_t now, int64_t n) {
  int64_t cycle = now;
  while (n > 0) {
    if (cycle < m_drain_end) {
      // A drain is running: words fill the buffer; the one that leaves it full waits for the drain.
      const int64_t k = m_free > 0 ? std::min(n, m_free) : 1;
      store(k);
      n -= k;
      if (m_free <= 0) cycle = m_drain_end;
    } else {
      // Idle: the word that leaves less than the active half free starts a drain.
      const int64_t k = std::min(n, std::max<int64_t>(1, m_free - m_active + 1));
      store(k);
      n -= k;
      if (m_free < m_active) {
        close_line();
        m_drain_end = drain(cycle);
      }
    }
  }
  return cycle - now;
}

}  // namespace kp
