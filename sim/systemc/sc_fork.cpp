#include "sim/systemc/sc_fork.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>

#include "core/fd_io.h"

namespace kp {
namespace {

// Why a child with no payload ended, for the parent's error.
std::string how_it_ended(int status) {
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended abnormally";
}

}  // namespace

std::vector<std::string> run_forked_pool_bytes(int workers, const std::function<std::string(int)>& fn) {
  std::vector<pid_t> pids;
  std::vector<int> fds;
  std::fflush(nullptr);  // the children must not re-flush the parent's buffered output
  for (int w = 0; w < workers; ++w) {
    int p[2];
    if (::pipe(p) != 0) throw std::runtime_error(std::string("run_forked_pool: pipe failed: ") + std::strerror(errno));
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error(std::string("run_forked_pool: fork failed: ") + std::strerror(errno));
    if (pid == 0) {
      ::close(p[0]);
      for (int fd : fds) ::close(fd);
      int status = 0;
      std::string payload;
      // 'O' then the result, or 'E' then the exception's message: the parent tells them apart.
      try {
        payload = "O" + fn(w);
      } catch (const std::exception& e) {
        payload = std::string("E") + e.what();
        status = 4;
      } catch (...) {
        payload = "Eunknown exception";
        status = 4;
      }
      if (!write_all(p[1], payload.data(), payload.size())) status = 3;
      ::close(p[1]);
      ::_exit(status);
    }
    ::close(p[1]);
    pids.push_back(pid), fds.push_back(p[0]);
  }
  // Read every child to EOF in turn (a finished child waits on its full pipe, it never deadlocks).
  std::vector<std::string> data;
  for (int fd : fds) {
    data.push_back(read_to_end(fd));
    ::close(fd);
  }
  std::string error;
  std::vector<std::string> out;
  for (size_t w = 0; w < pids.size(); ++w) {
    int status = 0;
    while (::waitpid(pids[w], &status, 0) < 0 && errno == EINTR) {}
    const std::string& d = data[w];
    if (!d.empty() && d[0] == 'E') {
      error = "SystemC worker: " + d.substr(1);
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || d.empty()) {
      if (error.empty()) error = "SystemC worker " + std::to_string(w) + " failed: " + how_it_ended(status);
    }
    out.push_back(d.empty() ? std::string() : d.substr(1));
  }
  if (!error.empty()) throw std::runtime_error(error);
  return out;
}

std::vector<std::vector<double>> run_forked_pool(int workers, const std::function<std::vector<double>(int)>& fn) {
  const std::vector<std::string> bytes = run_forked_pool_bytes(workers, [&fn](int w) {
    const std::vector<double> v = fn(w);
    return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double));
  });
  std::vector<std::vector<double>> out;
  for (const std::string& b : bytes) {
    if (b.size() % sizeof(double) != 0) throw std::runtime_error("run_forked_pool: a SystemC worker sent a torn result");
    std::vector<double> v(b.size() / sizeof(double));
    if (!v.empty()) std::memcpy(v.data(), b.data(), b.size());
    out.push_back(std::move(v));
  }
  return out;
}

std::vector<double> run_forked(const std::function<std::vector<double>()>& fn) {
  return run_forked_pool(1, [&fn](int) { return fn(); })[0];
}

}  // namespace kp
