#include "sim/systemc/sc_pool.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace kp {
namespace {

bool write_all(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w, n -= static_cast<size_t>(w);
  }
  return true;
}

bool read_all(int fd, void* data, size_t n) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    const ssize_t r = ::read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r, n -= static_cast<size_t>(r);
  }
  return true;
}

// Child: elaborate its share, send (layers, then total/stall/folds per layer) per job, exit.
[[noreturn]] void run_worker(const std::vector<ScJob>& jobs, size_t first, size_t stride, int fd) {
  int status = 0;
  try {
    std::vector<ScJob> mine;
    for (size_t j = first; j < jobs.size(); j += stride) mine.push_back(jobs[j]);
    for (const auto& layers : run_systolic_sc(mine)) {
      const int64_t n = static_cast<int64_t>(layers.size());
      bool ok = write_all(fd, &n, sizeof n);
      for (const ScLayerResult& r : layers) {
        const int64_t v[3] = {r.total_cycles, r.stall_cycles, r.folds};
        ok = ok && write_all(fd, v, sizeof v);
      }
      if (!ok) status = 3;
    }
  } catch (...) {
    status = 4;
  }
  ::close(fd);
  ::_exit(status);  // skip atexit handlers and the SystemC kernel's teardown in the child
}

}  // namespace

std::vector<std::vector<ScLayerResult>> run_systolic_sc_pool(const std::vector<ScJob>& jobs, int workers) {
  if (jobs.empty()) return {};
  const size_t n = std::min(jobs.size(), static_cast<size_t>(std::max(workers, 1)));
  std::vector<pid_t> pids(n, -1);
  std::vector<int> fds(n, -1);
  for (size_t w = 0; w < n; ++w) {
    int p[2];
    if (::pipe(p) != 0) throw std::runtime_error("run_systolic_sc_pool: pipe failed");
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("run_systolic_sc_pool: fork failed");
    if (pid == 0) {
      ::close(p[0]);
      for (size_t k = 0; k < w; ++k) ::close(fds[k]);
      run_worker(jobs, w, n, p[1]);
    }
    ::close(p[1]);
    pids[w] = pid, fds[w] = p[0];
  }
  std::vector<std::vector<ScLayerResult>> out(jobs.size());
  bool ok = true;
  for (size_t w = 0; w < n; ++w) {
    for (size_t j = w; j < jobs.size() && ok; j += n) {
      int64_t layers = 0;
      ok = read_all(fds[w], &layers, sizeof layers) && layers >= 0;
      for (int64_t l = 0; l < layers && ok; ++l) {
        int64_t v[3];
        ok = read_all(fds[w], v, sizeof v);
        out[j].push_back(ScLayerResult{v[0], v[1], v[2]});
      }
    }
    ::close(fds[w]);
  }
  for (size_t w = 0; w < n; ++w) {
    int status = 0;
    while (::waitpid(pids[w], &status, 0) < 0 && errno == EINTR) {}
    ok = ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  if (!ok) throw std::runtime_error("run_systolic_sc_pool: a SystemC worker failed");
  return out;
}

}  // namespace kp
