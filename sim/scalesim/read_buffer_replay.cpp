#include "sim/scalesim/read_buffer_replay.h"

#include <algorithm>
#include <stdexcept>

#include "core/int_math.h"

namespace kp {

ReadBufferReplay::ReadBufferReplay(int64_t sram_words, int64_t words, int64_t bandwidth_words_per_cycle) {
  if (sram_words < 1 || words < 0 || bandwidth_words_per_cycle < 1) {
    throw std::invalid_argument("ReadBufferReplay: sram_words and bandwidth must be >= 1");
  }
  // read_buffer.set_params / prepare_hashed_buffer, active_buf_frac = 0.5 (single_layer_sim.py).
  const int64_t active = ceil_div(sram_words, 2), prefetch = sram_words - active;
  m_set_words = ceil_div(sram_words, 100);
  m_sets = words / m_set_words + 1;  // the last set may be partial, or empty when words divide
  m_active_sets = std::min(m_sets, ceil_div(active, m_set_words));
  m_prefetch_sets = std::min(m_sets - m_active_sets, ceil_div(prefetch, m_set_words));
  m_period = ceil_div(prefetch, bandwidth_words_per_cycle) + 1;  // request lines + port latency 1
  m_start = 0, m_end = m_active_sets;
  m_first_fill_words = std::min(words, active), m_prefetch_words = prefetch;
}

int64_t ReadBufferReplay::fetched_words() const { return m_first_fill_words + m_advances * m_prefetch_words; }

void ReadBufferReplay::demand(const int64_t* sets, int n, int64_t now, int64_t& offset) {
  for (;;) {
    for (int i = 0; i < n; ++i) {
      if (in_window(sets[i])) return;
    }
    if (m_prefetch_sets == 0) return;  // the whole operand is resident: SCALE-Sim always hits
    m_start = (m_start + m_prefetch_sets) % m_sets;
    m_end = (m_start + m_active_sets) % m_sets;
    m_last_fill += m_period;
    ++m_advances;
    offset = std::max(offset, m_last_fill - now);
  }
}

}  // namespace kp
