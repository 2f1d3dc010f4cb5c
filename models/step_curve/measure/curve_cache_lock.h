#pragma once
// One measurement at a time per curve cache: an exclusive flock on `<cache>.lock`, held for the
// scope (the ranks of an MPI study, parallel tests and `kneepoint study` runs that share a
// workload wait for each other and then find the cache made). Never throws: held() says whether
// the lock was taken, and the caller decides what a failure means.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <string>

namespace kp {

class CurveCacheLock {
 public:
  explicit CurveCacheLock(const std::string& cache_path)
      : m_fd(::open((cache_path + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    m_held = m_fd >= 0 && ::flock(m_fd, LOCK_EX) == 0;
  }
  ~CurveCacheLock() {
    if (m_fd >= 0) ::close(m_fd);  // releases the flock
  }
  CurveCacheLock(const CurveCacheLock&) = delete;
  CurveCacheLock& operator=(const CurveCacheLock&) = delete;
  bool held() const { return m_held; }

 private:
  int m_fd;
  bool m_held = false;
};

}  // namespace kp
