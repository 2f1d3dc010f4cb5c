#include "sim/systemc/net/net_runner.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

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
      const bool sym = j.symmetric && symmetric_allowed(j.ic);
      const CollectiveDag dag = build_collective_dag(j.ic, topo, j.bytes, sym);
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
  }
}

bool io_all(int fd, void* data, size_t n, bool write) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    const ssize_t k = write ? ::write(fd, p, n) : ::read(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k, n -= static_cast<size_t>(k);
  }
  return true;
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
  int fd[2];
  if (::pipe(fd) != 0) throw std::runtime_error("run_net_sc_forked: pipe failed");
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("run_net_sc_forked: fork failed");
  if (pid == 0) {
    ::close(fd[0]);
    int status = 0;
    try {
      std::vector<std::vector<NetSpan>> child_spans;
      for (NetRunStats s : run_net_sc(jobs, spans ? &child_spans : nullptr))
        if (!io_all(fd[1], &s, sizeof s, true)) status = 3;
      for (std::vector<NetSpan>& v : child_spans) {  // per job: a count, then the spans
        uint64_t n = v.size();
        if (!io_all(fd[1], &n, sizeof n, true) || (n > 0 && !io_all(fd[1], v.data(), n * sizeof(NetSpan), true)))
          status = 3;
      }
    } catch (...) {
      status = 4;
    }
    ::close(fd[1]);
    ::_exit(status);  // skip the SystemC kernel's teardown in the child
  }
  ::close(fd[1]);
  std::vector<NetRunStats> out(jobs.size());
  bool ok = true;
  for (NetRunStats& s : out) ok = ok && io_all(fd[0], &s, sizeof s, false);
  if (spans) {
    spans->assign(jobs.size(), {});
    for (std::vector<NetSpan>& v : *spans) {
      uint64_t n = 0;
      ok = ok && io_all(fd[0], &n, sizeof n, false);
      if (!ok) break;
      v.resize(n);
      ok = n == 0 || io_all(fd[0], v.data(), n * sizeof(NetSpan), false);
    }
  }
  ::close(fd[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  if (!ok || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("run_net_sc_forked: the SystemC interconnect worker failed");
  return out;
}

}  // namespace kp
