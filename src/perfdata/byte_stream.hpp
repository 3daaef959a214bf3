// ByteStream: buffered, forward-only reading of a perf.data file's data
// (from an offset up to an end) or of a pipe (to its end), so that a
// recording of any size is read through a fixed buffer: the file's pages
// are never mapped into strobe, and its memory does not grow with the file.
// fill(n) makes n bytes available at data(), aligned to 8 at the buffer's
// start; consume() and skip() move on. Errors of read(2) are Errors; the end
// of the data is fill() returning false.
// Owns: the buffer; not the descriptor. Thread safety: none.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "base/result.hpp"

namespace strobe::perfdata {

class ByteStream {
 public:
  // `end`: UINT64_MAX reads to the end of the file or pipe. seekable: pread
  // from `start`; else read(2) from where the descriptor is.
  ByteStream(int fd, bool seekable, uint64_t start, uint64_t end);

  // Makes at least n bytes available; false when the data ends first (then
  // available() says how many there were).
  Result<bool> fill(size_t n);
  [[nodiscard]] const uint8_t* data() const { return buf_.get() + pos_; }
  [[nodiscard]] size_t available() const { return len_ - pos_; }
  void consume(size_t n) { pos_ += n; }
  // Discards n bytes (a payload that follows a record); false when the data
  // ends first.
  Result<bool> skip(uint64_t n);
  // The file offset of data() (for a pipe: bytes read before it, plus
  // where the stream started).
  [[nodiscard]] uint64_t offset() const { return base_ + pos_; }

 private:
  static constexpr size_t kCapacity = 1 << 20;
  int fd_;
  bool seekable_;
  uint64_t next_;  // file offset of the next byte to read
  uint64_t end_;
  std::unique_ptr<uint8_t[]> buf_;
  size_t cap_ = kCapacity;
  size_t pos_ = 0;
  size_t len_ = 0;
  uint64_t base_;  // file offset of buf_[0]
  bool eof_ = false;
};

}  // namespace strobe::perfdata
