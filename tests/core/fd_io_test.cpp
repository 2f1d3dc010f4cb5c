// The whole-buffer write loop (core/fd_io.h) against a write(2) that writes a few bytes at a time,
// fails with EINTR, fails for real or makes no progress; and a real pipe round trip.
#include "core/fd_io.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace kp {
namespace {

std::string g_sink;
int g_calls = 0;

// Writes at most 3 bytes a call and fails with EINTR on every third call.
ssize_t short_and_interrupted(int, const void* data, size_t n) {
  if (++g_calls % 3 == 0) {
    errno = EINTR;
    return -1;
  }
  const size_t k = n < 3 ? n : 3;
  g_sink.append(static_cast<const char*>(data), k);
  return static_cast<ssize_t>(k);
}

// Takes 5 bytes, then the disk is full.
ssize_t fills_up(int, const void* data, size_t n) {
  if (!g_sink.empty()) {
    errno = ENOSPC;
    return -1;
  }
  const size_t k = n < 5 ? n : 5;
  g_sink.append(static_cast<const char*>(data), k);
  return static_cast<ssize_t>(k);
}

ssize_t no_progress(int, const void*, size_t) { return 0; }

TEST(FdIo, ShortWritesAndEintrAreRetriedUntilAllIsWritten) {
  g_sink.clear(), g_calls = 0;
  const std::string text = "b 12,3,0.1,0.9,inf,budget,1.5 *0123abcd\n";  // 41 bytes
  ASSERT_TRUE(write_all(7, text.data(), text.size(), &short_and_interrupted));
  EXPECT_EQ(g_sink, text);
  // 41 bytes at 3 a call is 14 writes; every third call is an EINTR: 14 + 6 = 20 calls.
  EXPECT_EQ(g_calls, 20);
}

TEST(FdIo, ARealErrorStopsWithItsErrno) {
  g_sink.clear();
  errno = 0;
  EXPECT_FALSE(write_all(7, "0123456789", 10, &fills_up));
  EXPECT_EQ(errno, ENOSPC);
  EXPECT_EQ(g_sink, "01234");
  EXPECT_FALSE(write_all(7, "x", 1, &no_progress));  // would spin forever if retried
  EXPECT_EQ(errno, EIO);
}

TEST(FdIo, PipeRoundTrip) {
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  const std::string text(1000, 'k');
  ASSERT_TRUE(write_all(p[1], text));
  ::close(p[1]);
  EXPECT_EQ(read_to_end(p[0]), text);
  ::close(p[0]);
}

}  // namespace
}  // namespace kp
