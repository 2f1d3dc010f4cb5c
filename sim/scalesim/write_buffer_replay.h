#pragma once
// SCALE-Sim v2's ofmap write buffer in USER bandwidth mode (memory/write_buffer.py @ 22f88b1;
// Samajdar et al., ISPASS 2020), replayed on word counts.
//
// Contract: mirrors write_buffer.service_writes' timing exactly. Outputs are packed into lines of
// `bandwidth` words; when more than the drain half (S - ceil(S/2) words) is occupied and no drain
// is running, the buffer closes its partly filled line and drains the next ceil(drain/bandwidth)
// lines, one per cycle. A write that finds the buffer full while a drain runs stalls to the
// drain's end. As in SCALE-Sim, a drain frees a whole line's worth for every line but its last,
// even a partly filled one. Constant time per write_line() except for queue upkeep; the queue of
// partly filled lines grows only when it has to (amortised, no allocation in steady state).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace kp {

class WriteBufferReplay {
 public:
  WriteBufferReplay(int64_t sram_words, int64_t bandwidth_words_per_cycle);
  // Writes n words of one demand line arriving at cycle `now`; returns the line's stall cycles.
  int64_t write_line(int64_t now, int64_t n);

 private:
  void store(int64_t n);
  void close_line();
  int64_t drain(int64_t now);  // returns the cycle the drain ends

  int64_t m_total = 0, m_active = 0, m_drain = 0, m_bw = 1;
  int64_t m_free = 0, m_drain_end = 0;
  int64_t m_lines = 0, m_next_line = 0, m_open_words = 0;  // lines written, next to drain, open line
  // Partly filled lines not yet drained, as (line index, words), oldest first from m_partial_head.
  std::vector<int64_t> m_partial_line, m_partial_words;
  size_t m_partial_head = 0;
};

}  // namespace kp
