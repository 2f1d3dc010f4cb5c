#include "core/fd_io.h"

#include <unistd.h>

#include <cerrno>

namespace kp {

bool write_all(int fd, const void* data, size_t n, WriteFn write_fn) {
  if (write_fn == nullptr) write_fn = &::write;
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = write_fn(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return false;
    if (w == 0) {  // no progress and no error: retrying could spin forever
      errno = EIO;
      return false;
    }
    p += w, n -= static_cast<size_t>(w);
  }
  return true;
}

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

}  // namespace kp
