// BackgroundWriter: every buffer reaches the descriptor once, in order, and
// drain() returns only when they have; a failed write (a full device) makes
// push() and drain() false with the write's errno, and the buffers handed
// back are empty.
#include "base/background_writer.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string>

namespace strobe {
namespace {

std::string readAll(int fd) {
  std::string s;
  char buf[4096];
  ::lseek(fd, 0, SEEK_SET);
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) s.append(buf, static_cast<size_t>(n));
  return s;
}

TEST(BackgroundWriterTest, WritesEveryBufferInOrder) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  const int fd = ::fileno(f);
  std::string want;
  {
    BackgroundWriter w(fd);
    TextBuffer buf;
    for (int i = 0; i < 500; ++i) {
      buf.append(std::to_string(i));
      buf.append(std::string(static_cast<size_t>(i % 7) * 1000, static_cast<char>('a' + i % 26)));
      buf.append('\n');
      if (i % 3 == 0) {
        want += buf.view();
        ASSERT_TRUE(w.push(buf));
        EXPECT_TRUE(buf.empty());
      }
      if (i % 50 == 0) {
        ASSERT_TRUE(w.drain());
        EXPECT_EQ(readAll(fd), want) << "drained after " << i;
      }
    }
    TextBuffer none;
    EXPECT_TRUE(w.push(none));
    want += buf.view();
    ASSERT_TRUE(w.push(buf));
    ASSERT_TRUE(w.drain());
  }
  EXPECT_EQ(readAll(fd), want);
  std::fclose(f);
}

TEST(BackgroundWriterTest, AFullDeviceFailsWithItsErrno) {
  const int fd = ::open("/dev/full", O_WRONLY);
  ASSERT_GE(fd, 0);
  {
    BackgroundWriter w(fd);
    const std::string x(100000, 'x');
    TextBuffer buf;
    bool pushed = true;
    for (int i = 0; i < 20 && pushed; ++i) {
      buf.clear();
      buf.append(x);
      pushed = w.push(buf);
    }
    errno = 0;
    EXPECT_FALSE(w.drain());
    EXPECT_EQ(errno, ENOSPC);
    buf.clear();
    buf.append("yyyyyyyyyy");
    errno = 0;
    EXPECT_FALSE(w.push(buf));
    EXPECT_EQ(errno, ENOSPC);
  }
  ::close(fd);
}

}  // namespace
}  // namespace strobe
