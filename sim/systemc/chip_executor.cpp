#include "sim/systemc/chip_executor.h"

#include <systemc>
#include <tlm_utils/tlm_quantumkeeper.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "core/atomic_file.h"
#include "sim/systemc/sc_compute_unit.h"
#include "sim/systemc/sc_dma.h"
#include "sim/systemc/sc_dram.h"
#include "sim/systemc/sc_fork.h"
#include "sim/systemc/sc_sram.h"
#include "sim/tile_plan.h"

namespace kp {
namespace {

SC_MODULE(ScChipExecutor) {
  SC_HAS_PROCESS(ScChipExecutor);

  ScChipExecutor(sc_core::sc_module_name name, const ScChipRun& run)
      : sc_module(name),
        m_run(run),
        m_trace(!run.trace_path.empty()),
        m_arrays("arrays", "array", run.hw.array.count, run.hw.clock_hz, run.hw.compute_efficiency, m_trace),
        m_vector("vector", "vector unit", run.hw.vector.count, run.hw.clock_hz, 1.0, m_trace),
        m_dma("dma", m_trace),
        m_sram("sram", run.hw.sram),
        m_dram("dram", run.hw.dram, m_trace) {
    m_arrays.sram.bind(m_sram.socket);
    m_vector.sram.bind(m_sram.socket);
    m_dma.dram.bind(m_dram.socket);
    SC_THREAD(execute);
  }

  const std::vector<ScOpResult>& results() const { return m_results; }
  const ScTrace& trace() const { return m_trace; }

 private:
  void execute() {
    tlm_utils::tlm_quantumkeeper qk;
    qk.reset();
    for (size_t i = 0; i < m_run.ops.size(); ++i) {
      m_results.push_back(run_op(static_cast<int64_t>(i), qk));
      m_ops_done = static_cast<int64_t>(i) + 1;
      start_collective(m_op_end);
    }
  }

  // The next collective starts at `t` if its bucket is ready and none runs. By value: callers
  // pass m_coll_end, which this sets.
  void start_collective(const sc_core::sc_time t) {
    if (m_busy || m_next >= m_run.collectives.size() || m_run.collectives[m_next].ready_op >= m_ops_done) return;
    const ScCollective& c = m_run.collectives[m_next++];
    m_busy = true;
    m_coll_end = t + sc_core::sc_time(c.seconds, sc_core::SC_SEC);
    m_coll_rate = c.seconds > 0 ? c.dram_bytes / c.seconds : 0.0;
    m_injected = t;
  }

  // Issue the running collectives' DRAM traffic up to `t` (before the tile issued at `t`), and
  // give the units their share for that tile. Bytes so issued are not the op's.
  void share_until(const sc_core::sc_time& t, bool overlaps, ScComputeUnit& units) {
    while (m_busy && overlaps) {
      const sc_core::sc_time upto = std::min(t, m_coll_end);
      const int64_t bytes = std::llround((upto - m_injected).to_seconds() * m_coll_rate);
      if (bytes > 0) {
        m_dma.transfer(m_injected, 0, bytes, -1);
        m_coll_bytes += static_cast<double>(bytes);
      }
      m_injected = upto;
      if (t < m_coll_end) break;
      m_busy = false;
      start_collective(m_coll_end);
    }
    units.set_share(m_busy && overlaps ? m_run.collective_units_left : 1.0);
  }

  ScOpResult run_op(int64_t i, tlm_utils::tlm_quantumkeeper& qk) {
    const ScOp& op = m_run.ops[static_cast<size_t>(i)];
    const TilePlan plan = op.gemm ? TilePlan::gemm(m_run.hw, op.g, op.a_unique_fraction, op.bytes_per_element, op.out_fraction,
                                                   op.array_speed)
                                  : TilePlan::elementwise(m_run.hw, op.elements, op.ops_per_element,
                                                          op.tensors_moved, op.bytes_per_element);
    ScComputeUnit& units = op.gemm ? m_arrays : m_vector;
    m_dram.set_op(i);
    ScOpResult r;
    const sc_core::sc_time op_start = qk.get_current_time();
    m_op_end = op_start;
    const int64_t n = plan.tiles();
    if (n == 0) return r;
    share_until(op_start, op.overlaps, units);
    const double read0 = m_dram.read_bytes(), write0 = m_dram.write_bytes(), sram0 = m_sram.bytes();
    const double coll0 = m_coll_bytes;
    TileStep cur = plan.step(0);
    sc_core::sc_time ready = m_dma.transfer(op_start, 0, cur.read_bytes, i);
    int64_t prev_write = 0;
    for (int64_t t = 0; t < n; ++t) {
      m_sram.check_footprint(cur.footprint_bytes);
      const TileStep next = t + 1 < n ? plan.step(t + 1) : TileStep{};
      const sc_core::sc_time end = units.execute(ready, cur, i);
      const sc_core::sc_time fetched = m_dma.transfer(ready, prev_write, next.read_bytes, i);
      r.compute_s += (end - ready).to_seconds();
      r.unit_cycles += static_cast<double>(cur.unit_cycles);
      r.macs += cur.macs, r.vector_ops += cur.vector_ops;
      prev_write = cur.write_bytes;
      ready = std::max(end, fetched);
      cur = next;
      share_until(ready, op.overlaps, units);  // before sync: the kernel's time never passes it
      sync(qk, ready);
    }
    const sc_core::sc_time op_end = m_dma.transfer(ready, prev_write, 0, i);
    const sc_core::sc_time next_start = std::max(op_end, op_start + sc_core::sc_time(op.launch_s, sc_core::SC_SEC));
    share_until(next_start, op.overlaps, units);
    m_op_end = next_start;
    sync(qk, next_start);
    r.seconds = (op_end - op_start).to_seconds();
    r.stall_s = r.seconds - r.compute_s;
    r.dram_read_bytes = m_dram.read_bytes() - read0 - (m_coll_bytes - coll0);
    r.dram_write_bytes = m_dram.write_bytes() - write0;
    r.sram_bytes = m_sram.bytes() - sram0;
    r.tiles = static_cast<double>(n);
    return r;
  }

  // Advance the executor's local time to `t`; hand control to the kernel once past the quantum.
  static void sync(tlm_utils::tlm_quantumkeeper& qk, const sc_core::sc_time& t) {
    qk.set(t - sc_core::sc_time_stamp());
    if (qk.need_sync()) qk.sync();
  }

  const ScChipRun& m_run;
  ScTrace m_trace;
  ScComputeUnit m_arrays, m_vector;
  ScDma m_dma;
  ScSram m_sram;
  ScDram m_dram;
  std::vector<ScOpResult> m_results;
  // The collective beside the ops: which starts next, whether one runs, until when, its DRAM
  // bytes/s and how far its traffic is issued; the bytes it has issued in all.
  size_t m_next = 0;
  int64_t m_ops_done = 0;
  bool m_busy = false;
  sc_core::sc_time m_coll_end, m_injected, m_op_end;
  double m_coll_rate = 0, m_coll_bytes = 0;
};

bool g_elaborated = false;

}  // namespace

std::vector<std::vector<ScOpResult>> run_chip_sc(const std::vector<ScChipRun>& runs) {
  if (g_elaborated) throw std::logic_error("run_chip_sc: SystemC allows one elaboration per process");
  g_elaborated = true;
  if (runs.empty()) return {};
  sc_core::sc_set_time_resolution(1, sc_core::SC_FS);
  tlm::tlm_global_quantum::instance().set(sc_core::sc_time(runs[0].quantum_s, sc_core::SC_SEC));
  // Kept alive until the process ends: the kernel holds references to the modules.
  std::vector<ScChipExecutor*> chips;
  for (size_t r = 0; r < runs.size(); ++r)
    chips.push_back(new ScChipExecutor(("chip" + std::to_string(r)).c_str(), runs[r]));
  sc_core::sc_start();
  std::vector<std::vector<ScOpResult>> out;
  for (size_t r = 0; r < runs.size(); ++r) {
    if (chips[r]->results().size() != runs[r].ops.size()) throw std::logic_error("run_chip_sc: a chip did not finish");
    if (!runs[r].trace_path.empty()) write_file_atomic(runs[r].trace_path, chips[r]->trace().json(runs[r].op_names));
    out.push_back(chips[r]->results());
  }
  return out;
}

std::vector<std::vector<ScOpResult>> run_chip_sc_pool(const std::vector<ScChipRun>& runs, int workers) {
  constexpr size_t kFields = sizeof(ScOpResult) / sizeof(double);
  static_assert(sizeof(ScOpResult) == kFields * sizeof(double), "ScOpResult must be all doubles");
  if (runs.empty()) return {};
  const size_t n = std::min(runs.size(), static_cast<size_t>(std::max(workers, 1)));
  const auto flat = run_forked_pool(static_cast<int>(n), [&](int w) {
    std::vector<ScChipRun> mine;
    for (size_t r = static_cast<size_t>(w); r < runs.size(); r += n) mine.push_back(runs[r]);
    std::vector<double> v;
    for (const std::vector<ScOpResult>& res : run_chip_sc(mine)) {
      const size_t at = v.size();
      v.resize(at + res.size() * kFields);
      if (!res.empty()) std::memcpy(&v[at], res.data(), res.size() * kFields * sizeof(double));
    }
    return v;
  });
  std::vector<std::vector<ScOpResult>> out(runs.size());
  for (size_t w = 0; w < n; ++w) {
    size_t at = 0;
    for (size_t r = w; r < runs.size(); r += n) {
      const size_t len = runs[r].ops.size() * kFields;
      if (at + len > flat[w].size()) throw std::runtime_error("run_chip_sc_pool: short result from a worker");
      out[r].resize(runs[r].ops.size());
      if (len > 0) std::memcpy(static_cast<void*>(out[r].data()), &flat[w][at], len * sizeof(double));
      at += len;
    }
  }
  return out;
}

std::vector<ScOpResult> run_chip_sc_forked(const ScChipRun& run) { return run_chip_sc_pool({run}, 1)[0]; }

}  // namespace kp
