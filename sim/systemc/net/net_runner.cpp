#include "sim/systemc/net/net_runner.h"

#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "sim/systemc/sc_fork.h"

namespace kp {
namespace {

struct NetDriver : sc_core::sc_module {
  SC_HAS_PROCESS(NetDriver);
  NetDriver(sc_core::sc_module_name name, const std::vector<NetJob>& jobs, std::vector<std::vector<NetSpan>>* spans)
      : sc_core::sc_module(name), engine("engine"), m_jobs(jobs), m_spans(spans) {
    SC_THREAD(drive);
  }
  void drive() {
    if (m_spans) m_spans->assign(m_jobs.size(), {});
    for (size_t i = 0; i < m_jobs.size(); ++i) {
      const NetJob& j = m_jobs[i];
      const NetTopology topo(j.ic, j.learners);
      const bool sym = !j.point_to_point && j.symmetric && symmetric_allowed(j.ic);
      const CollectiveDag dag = j.point_to_point ? point_to_point_dag(j.learners / 2, j.bytes)
                                                 : build_collective_dag(j.ic, topo, j.bytes, sym, j.stride);
      results.push_back(engine.run(topo, dag, sym, m_spans ? &(*m_spans)[i] : nullptr));
    }
  }
  NetEngine engine;
  std::vector<NetRunStats> results;
  const std::vector<NetJob>& m_jobs;
  std::vector<std::vector<NetSpan>>* m_spans;
};

void check(const std::vector<NetJob>& jobs) {
  for (const NetJob& j : jobs) {
    const std::string problem = learners_problem(j.ic, j.learners);
    if (!problem.empty()) throw std::invalid_argument(problem);
    if (!(j.bytes >= 0)) throw std::invalid_argument("all-reduce of a negative size");
    if (j.point_to_point && (j.learners < 2 || j.learners % 2 != 0))
      throw std::invalid_argument("point-to-point job: an even number of learners >= 2");
  }
}

// A trivially copyable value appended to / taken from a worker's byte stream.
template <class T>
void put(std::string& out, const T* v, size_t n) {
  static_assert(std::is_trivially_copyable<T>::value, "sent as raw bytes");
  out.append(reinterpret_cast<const char*>(v), n * sizeof(T));
}

template <class T>
void take(const std::string& in, size_t& at, T* v, size_t n) {
  if (at + n * sizeof(T) > in.size()) throw std::runtime_error("run_net_sc_forked: short result from the worker");
  if (n > 0) std::memcpy(static_cast<void*>(v), in.data() + at, n * sizeof(T));
  at += n * sizeof(T);
}

}  // namespace

std::vector<NetRunStats> run_net_sc(const std::vector<NetJob>& jobs, std::vector<std::vector<NetSpan>>* spans) {
  check(jobs);
  if (sc_core::sc_get_status() != sc_core::SC_ELABORATION)
    throw std::logic_error("run_net_sc: this process has already run a SystemC simulation");
  NetDriver driver("net", jobs, spans);
  sc_core::sc_start();
  return driver.results;
}

std::vector<NetRunStats> run_net_sc_forked(const std::vector<NetJob>& jobs, std::vector<std::vector<NetSpan>>* spans) {
  check(jobs);
  if (jobs.empty()) return {};
  // The worker sends every job's stats, then per job a span count and its spans.
  const std::string bytes = run_forked_pool_bytes(1, [&](int) {
    std::vector<std::vector<NetSpan>> child_spans;
    const std::vector<NetRunStats> stats = run_net_sc(jobs, spans ? &child_spans : nullptr);
    std::string out;
    put(out, stats.data(), stats.size());
    for (const std::vector<NetSpan>& v : child_spans) {
      const uint64_t n = v.size();
      put(out, &n, 1);
      put(out, v.data(), v.size());
    }
    return out;
  })[0];
  size_t at = 0;
  std::vector<NetRunStats> out(jobs.size());
  take(bytes, at, out.data(), out.size());
  if (spans) {
    spans->assign(jobs.size(), {});
    for (std::vector<NetSpan>& v : *spans) {
      uint64_t n = 0;
      take(bytes, at, &n, 1);
      if (n > (bytes.size() - at) / sizeof(NetSpan)) throw std::runtime_error("run_net_sc_forked: short result from the worker");
      v.resize(n);
      take(bytes, at, v.data(), v.size());
    }
  }
  return out;
}

}  // namespace kp
