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

std::vector<double> run_forked(const std::function<std::vector<double>()>& fn) {
  int p[2];
  if (::pipe(p) != 0) throw std::runtime_error("run_forked: pipe failed");
  std::fflush(nullptr);  // the child must not re-flush the parent's buffered output
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("run_forked: fork failed");
  if (pid == 0) {
    ::close(p[0]);
    int status = 0;
    std::string payload;
    try {
      const std::vector<double> v = fn();
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
  const std::string data = read_to_end(p[0]);
  ::close(p[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  if (!data.empty() && data[0] == 'E') throw std::runtime_error("SystemC worker: " + data.substr(1));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || data.empty() || (data.size() - 1) % sizeof(double) != 0)
    throw std::runtime_error("run_forked: the SystemC worker failed");
  std::vector<double> v((data.size() - 1) / sizeof(double));
  if (!v.empty()) std::memcpy(v.data(), data.data() + 1, v.size() * sizeof(double));
  return v;
}

}  // namespace kp
