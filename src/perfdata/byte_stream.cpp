#include "perfdata/byte_stream.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace strobe::perfdata {

ByteStream::ByteStream(int fd, bool seekable, uint64_t start, uint64_t end)
    : fd_(fd),
      seekable_(seekable),
      next_(start),
      end_(end),
      buf_(new uint8_t[kCapacity]),
      base_(start) {}

Result<bool> ByteStream::fill(size_t n) {
  if (available() >= n) return true;
  if (n > cap_) {
    // Never for a perf record (at most 64 KiB); kept general.
    std::unique_ptr<uint8_t[]> bigger(new uint8_t[n]);
    std::memcpy(bigger.get(), data(), available());
    base_ += pos_;
    len_ -= pos_;
    pos_ = 0;
    buf_ = std::move(bigger);
    cap_ = n;
  } else if (pos_ > 0) {
    // Move the partial record to the front (8-aligned there).
    std::memmove(buf_.get(), data(), available());
    base_ += pos_;
    len_ -= pos_;
    pos_ = 0;
  }
  while (len_ < n && !eof_) {
    size_t want = cap_ - len_;
    if (end_ != UINT64_MAX) want = static_cast<size_t>(std::min<uint64_t>(want, end_ - next_));
    if (want == 0) {
      eof_ = true;
      break;
    }
    const ssize_t got = seekable_ ? ::pread(fd_, buf_.get() + len_, want, static_cast<off_t>(next_))
                                  : ::read(fd_, buf_.get() + len_, want);
    if (got < 0) {
      if (errno == EINTR) continue;
      return systemError("cannot read the data at byte " + std::to_string(next_));
    }
    if (got == 0) {
      eof_ = true;
      break;
    }
    len_ += static_cast<size_t>(got);
    next_ += static_cast<uint64_t>(got);
  }
  return len_ >= n;
}

Result<bool> ByteStream::skip(uint64_t n) {
  if (seekable_ && n > available()) {
    // Jump over what is not buffered (AUX data may be gigabytes).
    n -= available();
    if (end_ != UINT64_MAX && n > end_ - next_) return false;
    next_ += n;
    base_ = next_;
    pos_ = len_ = 0;
    return true;
  }
  while (n > 0) {
    if (available() == 0) {
      auto more = fill(1);
      if (!more) return more.takeError();
      if (!*more) return false;
    }
    const size_t step = static_cast<size_t>(std::min<uint64_t>(n, available()));
    consume(step);
    n -= step;
  }
  return true;
}

}  // namespace strobe::perfdata
