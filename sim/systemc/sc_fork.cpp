#include "sim/systemc/sc_fork.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
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

// Reads until EOF.
std::string read_to_end(int fd) {
  std::string out;
  char buf[65536];
  for (;;) {
    const ssize_t r = ::read(fd, buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    out.append(buf, static_cast<size_t>(r));
  }
  return out;
}

}  // namespace

std::vector<std::vector<double>> run_forked_pool(int workers, const std::function<std::vector<double>(int)>& fn) {
  std::vector<pid_t> pids;
  std::vector<int> fds;
  std::fflush(nullptr);  // the children must not re-flush the parent's buffered output
  for (int w = 0; w < workers; ++w) {
    int p[2];
    if (::pipe(p) != 0) throw std::runtime_error("run_forked_pool: pipe failed");
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("run_forked_pool: fork failed");
    if (pid == 0) {
      ::close(p[0]);
      for (int fd : fds) ::close(fd);
      int status = 0;
      std::string payload;
      try {
        const std::vector<double> v = fn(w);
        payload.assign("O", 1);
        payload.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double));
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
  std::vector<std::vector<double>> out;
  for (size_t w = 0; w < pids.size(); ++w) {
    int status = 0;
    while (::waitpid(pids[w], &status, 0) < 0 && errno == EINTR) {}
    const std::string& d = data[w];
    if (!d.empty() && d[0] == 'E') {
      error = "SystemC worker: " + d.substr(1);
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || d.empty() || (d.size() - 1) % sizeof(double) != 0) {
      if (error.empty()) error = "run_forked_pool: a SystemC worker failed";
    }
    std::vector<double> v(d.empty() ? 0 : (d.size() - 1) / sizeof(double));
    if (!v.empty()) std::memcpy(v.data(), d.data() + 1, v.size() * sizeof(double));
    out.push_back(std::move(v));
  }
  if (!error.empty()) throw std::runtime_error(error);
  return out;
}

std::vector<double> run_forked(const std::function<std::vector<double>()>& fn) {
  return run_forked_pool(1, [&fn](int) { return fn(); })[0];
}

}  // namespace kp
