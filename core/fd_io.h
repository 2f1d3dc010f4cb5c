#pragma once
// Whole-buffer I/O on a file descriptor: the loop every raw write(2)/read(2) of the project goes
// through. write(2) may write less than asked (a pipe, a signal) and fail with EINTR; both are
// retried here, so a caller never sees a torn record from a short write.
// Contract: write_all returns true once all `n` bytes are written, false on the first real error
// (errno as write(2) left it; a zero-byte write counts as an error, errno EIO). read_to_end reads
// until EOF or an error and returns what it read.
#include <sys/types.h>

#include <cstddef>
#include <string>

namespace kp {

// The write(2) to use; tests pass one that writes a few bytes at a time or fails with EINTR.
using WriteFn = ssize_t (*)(int fd, const void* data, size_t n);

bool write_all(int fd, const void* data, size_t n, WriteFn write_fn = nullptr);
inline bool write_all(int fd, const std::string& text) { return write_all(fd, text.data(), text.size()); }

std::string read_to_end(int fd);

}  // namespace kp
