#pragma once
// SCALE-Sim v2's double-buffered read scratchpad in USER bandwidth mode (memory/read_buffer.py @
// 22f88b1; Samajdar et al., ISPASS 2020), replayed on positions instead of address sets.
//
// Contract: mirrors read_buffer.py's timing exactly. The operand's words, in prefetch order, are
// grouped into sets of ceil(S/100) words (S = SRAM words); the buffer holds a window of
// ceil(A / set) sets (the active half, A = ceil(S/2)) and advances it by ceil(P / set) sets (the
// prefetch half, P = S - A), cyclically over the operand, whenever a demanded word is outside it.
// Prefetches form one chain that never waits for demand: the first window is in place at cycle -1
// and the k-th advance completes at -1 + k * (ceil(P / bandwidth) + 1). A demand at cycle c stalls
// until the advance it needed completes. So an operand that does not fit stalls where its stream outruns the chain,
// and a re-read of a block that has left the window (a new column fold) waits for the window to go
// round the whole operand, not for the block's own words.
// Constant time per call plus one step per window advance; no allocation.
#include <cstdint>

namespace kp {

class ReadBufferReplay {
 public:
  // sram_words: the buffer (both halves); words: the operand's fetched words; bandwidth >= 1.
  ReadBufferReplay(int64_t sram_words, int64_t words, int64_t bandwidth_words_per_cycle);

  int64_t set_of(int64_t position) const { return position / m_set_words; }
  bool in_window(int64_t set) const {
    return m_start < m_end ? set >= m_start && set < m_end : set >= m_start || set < m_end;
  }
  // Serves one demanded word whose copies lie in sets[0..n): advances the window until one is in
  // it. `offset` is the line's running delay past cycle `now` (read_buffer.service_reads' offset).
  void demand(const int64_t* sets, int n, int64_t now, int64_t& offset);
  void demand(int64_t set, int64_t now, int64_t& offset) { demand(&set, 1, now, offset); }
  int64_t advances() const { return m_advances; }
  // Words the window moved from DRAM: the first active half (at most the operand), then one
  // prefetch half per advance (SCALE-Sim's num_access, before its rounding to whole lines).
  int64_t fetched_words() const;

 private:
  int64_t m_set_words = 1, m_sets = 1, m_active_sets = 1, m_prefetch_sets = 0, m_period = 1;
  int64_t m_start = 0, m_end = 1, m_last_fill = -1, m_advances = 0;
  int64_t m_first_fill_words = 0, m_prefetch_words = 0;
};

}  // namespace kp
