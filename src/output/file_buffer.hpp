// A large write buffer over a FILE*, for writers that format their own text
// (chrome): appends go to memory and reach the file in 1 MiB fwrite calls.
// Does not own or close the FILE*. Errors: once an fwrite comes up short
// ok() is false (errno kept) and later appends are dropped; the caller
// checks ok() after flush() and reports the failure.
//
// appendJsonString quotes and escapes a string exactly as RapidJSON's Writer
// does (the other JSON writers), so every JSON output escapes names alike.
//
// Thread safety: one thread at a time.
#pragma once

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace strobe::output {

class FileBuffer {
 public:
  explicit FileBuffer(std::FILE* out, size_t capacity = size_t{1} << 20)
      : out_(out), buf_(capacity) {}
  FileBuffer(const FileBuffer&) = delete;
  FileBuffer& operator=(const FileBuffer&) = delete;

  void append(std::string_view s) {
    if (s.size() > buf_.size() - used_) {
      flush();
      if (s.size() > buf_.size()) {
        write(s.data(), s.size());
        return;
      }
    }
    std::memcpy(buf_.data() + used_, s.data(), s.size());
    used_ += s.size();
  }
  void append(char c) {
    if (used_ == buf_.size()) flush();
    buf_[used_++] = c;
  }
  // A number in decimal.
  void appendUint(uint64_t v) {
    reserve(24);
    used_ = static_cast<size_t>(std::to_chars(pos(), end(), v).ptr - buf_.data());
  }

  // Writes what is buffered; false once any write failed.
  bool flush() {
    if (used_ > 0) write(buf_.data(), used_);
    used_ = 0;
    return ok_;
  }
  bool ok() const { return ok_; }

 private:
  void reserve(size_t n) {
    if (buf_.size() - used_ < n) flush();
  }
  char* pos() { return buf_.data() + used_; }
  char* end() { return buf_.data() + buf_.size(); }
  void write(const char* data, size_t n) {
    if (ok_ && std::fwrite(data, 1, n, out_) != n) ok_ = false;
  }

  std::FILE* out_;
  std::vector<char> buf_;
  size_t used_ = 0;
  bool ok_ = true;
};

// Appends s as a JSON string literal (quotes included), escaped as the
// RapidJSON writer escapes: '"', '\\' and control characters.
void appendJsonString(std::string& out, std::string_view s);

}  // namespace strobe::output
