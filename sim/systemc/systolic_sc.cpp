#include "sim/systemc/systolic_sc.h"

#include <systemc>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/int_math.h"
#include "sim/scalesim/stall_model.h"

namespace kp {
namespace {

// 1 cycle = 1 ns of simulated time; only ratios matter.
// A function, not a static: a static sc_time would fix the time resolution when the library loads.
sc_core::sc_time cycle_time() { return sc_core::sc_time(1, sc_core::SC_NS); }

int64_t cycles_now() {
  return static_cast<int64_t>(sc_core::sc_time_stamp().value() / cycle_time().value());
}

// One fold in program order, resolved at elaboration so the threads only wait.
struct FoldStep {
  int64_t layer = 0;
  bool first_of_layer = false;
  int64_t fetch_cycles = 0;  // DMA time for this fold's new operand words
  int64_t ofmap_words = 0;
  int64_t cycles_per_fold = 0;
};

// The chip: an array thread executing folds and a DMA thread prefetching the next fold's operands
// into the idle half of the double buffer. The DMA may start fold i once fold i-1 has started (its
// buffer half is then free); after fold i-1 the array waits until its outputs fit in the ofmap
// write buffer (drained to DRAM at the interface bandwidth) and until fold i's operands are in.
SC_MODULE(ScChip) {
  SC_HAS_PROCESS(ScChip);

  ScChip(sc_core::sc_module_name name, const ScJob& job) : sc_module(name) {
    const ScChipConfig& c = job.chip;
    m_bw = c.dram_words_per_cycle;
    m_ofmap_capacity = (c.ofmap_sram_words + 1) / 2;
    DramInterfaceSpec dram{c.ifmap_sram_words, c.filter_sram_words, c.ofmap_sram_words, std::max<int64_t>(m_bw, 1)};
    const int64_t arrays = c.arrays;
    if (arrays < 1) throw std::invalid_argument("ScChip: arrays must be >= 1");
    for (size_t l = 0; l < job.layers.size(); ++l) {
      const FoldTiming ft = fold_timing(c.dataflow, c.rows, c.cols, job.layers[l]);
      // With several arrays, `arrays` consecutive folds form one wave: they compute side by side
      // (one delay of cycles_per_fold) and the DMA fetches their new operands together.
      int64_t in_wave = 0, ifmap_new = 0, filter_new = 0, ofmap = 0;
      bool first = true;
      for (int64_t fc = 0; fc < ft.col_folds; ++fc) {
        for (int64_t fr = 0; fr < ft.row_folds; ++fr) {
          const FoldTraffic t = fold_traffic(c.dataflow, c.rows, c.cols, job.layers[l], dram, fr, fc);
          ifmap_new += t.ifmap_new, filter_new += t.filter_new, ofmap += t.ofmap;
          const bool last = fr + 1 == ft.row_folds && fc + 1 == ft.col_folds;
          if (++in_wave < arrays && !last) continue;
          FoldStep s;
          s.layer = static_cast<int64_t>(l);
          s.first_of_layer = first;
          s.fetch_cycles = m_bw > 0 ? ceil_div(std::max(ifmap_new, filter_new), m_bw) : 0;
          s.ofmap_words = m_bw > 0 ? ofmap : 0;
          s.cycles_per_fold = ft.cycles_per_fold;
          m_steps.push_back(s);
          first = false, in_wave = 0, ifmap_new = filter_new = ofmap = 0;
        }
      }
      m_results.push_back(ScLayerResult{0, 0, ft.folds});
      m_layer_compute.push_back(ceil_div(ft.folds, arrays) * ft.cycles_per_fold - 1);
    }
    SC_THREAD(array_thread);
    SC_THREAD(dma_thread);
  }

  const std::vector<ScLayerResult>& results() const { return m_results; }

 private:
  void array_thread() {
    int64_t layer_start = 0;
    for (size_t i = 0; i < m_steps.size(); ++i) {
      const FoldStep& s = m_steps[i];
      if (s.first_of_layer) {
        layer_start = cycles_now();  // operands preloaded before the layer starts, as SCALE-Sim
        m_pending_ofmap = 0, m_pending_since = layer_start;
      } else {
        while (m_ready < static_cast<int64_t>(i)) wait(m_ready_event);
      }
      m_started = static_cast<int64_t>(i);
      m_started_event.notify(sc_core::SC_ZERO_TIME);
      wait(s.cycles_per_fold * cycle_time());
      const bool last_of_layer = i + 1 == m_steps.size() || m_steps[i + 1].first_of_layer;
      if (last_of_layer) {
        // A layer ends at its last output write into SRAM (SCALE-Sim's Total Cycles); the drain
        // of that last fold to DRAM is not part of it.
        ScLayerResult& r = m_results[static_cast<size_t>(s.layer)];
        r.total_cycles = cycles_now() - layer_start - 1;
        r.stall_cycles = r.total_cycles - m_layer_compute[static_cast<size_t>(s.layer)];
      } else {
        // The fold's outputs must fit in the write buffer before the array moves on; the DMA
        // keeps prefetching the next fold meanwhile, so read and write stalls overlap.
        reserve_ofmap(s.ofmap_words);
      }
    }
  }

  void dma_thread() {
    for (size_t i = 0; i < m_steps.size(); ++i) {
      if (!m_steps[i].first_of_layer) {
        while (m_started < static_cast<int64_t>(i) - 1) wait(m_started_event);
        if (m_steps[i].fetch_cycles > 0) wait(m_steps[i].fetch_cycles * cycle_time());
      }
      m_ready = static_cast<int64_t>(i);
      m_ready_event.notify(sc_core::SC_ZERO_TIME);
    }
  }

  // The ofmap write buffer drains to DRAM at m_bw words/cycle; the array waits while the previous
  // fold's outputs do not fit in the active half.
  void reserve_ofmap(int64_t words) {
    if (words == 0) return;
    const int64_t now = cycles_now();
    m_pending_ofmap = std::max<int64_t>(0, m_pending_ofmap - m_bw * (now - m_pending_since));
    m_pending_since = now;
    const int64_t overflow = m_pending_ofmap + words - m_ofmap_capacity;
    if (overflow > 0) {
      const int64_t wait_cycles = ceil_div(overflow, m_bw);
      wait(wait_cycles * cycle_time());
      m_pending_ofmap = std::max<int64_t>(0, m_pending_ofmap - m_bw * wait_cycles);
      m_pending_since = cycles_now();
    }
    m_pending_ofmap += words;
  }

  int64_t m_bw = 0, m_ofmap_capacity = 0;
  std::vector<FoldStep> m_steps;
  std::vector<ScLayerResult> m_results;
  std::vector<int64_t> m_layer_compute;
  int64_t m_ready = -1, m_started = -1;
  int64_t m_pending_ofmap = 0, m_pending_since = 0;
  sc_core::sc_event m_ready_event, m_started_event;
};

bool g_elaborated = false;

}  // namespace

std::vector<std::vector<ScLayerResult>> run_systolic_sc(const std::vector<ScJob>& jobs) {
  if (g_elaborated) throw std::logic_error("run_systolic_sc: SystemC allows one elaboration per process");
  g_elaborated = true;
  // The modules stay alive until the process ends: SystemC's kernel keeps references to them, and
  // the process cannot elaborate again anyway.
  std::vector<ScChip*> chips;
  for (size_t j = 0; j < jobs.size(); ++j) chips.push_back(new ScChip(("chip" + std::to_string(j)).c_str(), jobs[j]));
  sc_core::sc_start();
  std::vector<std::vector<ScLayerResult>> out;
  for (const ScChip* c : chips) out.push_back(c->results());
  return out;
}

}  // namespace kp
