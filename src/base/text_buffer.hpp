// TextBuffer: a growable byte buffer that output is written into in place.
//
// Why not std::string: in C++20 a string can only grow by resize(), which
// zero-fills, or by append() from text built elsewhere, a second copy.
// `strobe symbolize` writes ~17 MB of answers a run; writing them in place
// instead of copying them from a scratch buffer into a string took 4% of
// the instructions and 1-2 ms off a 30-40 ms run (docs/BENCHMARKS.md).
// Here room(n) gives a pointer with n writable bytes at the end,
// uninitialised; the caller writes there and commit()s where it stopped.
// Thread safety: none; one thread at a time.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>

namespace strobe {

class TextBuffer {
 public:
  // Where the next `n` bytes go; valid until the next room() or append().
  char* room(size_t n) {
    if (capacity_ - size_ < n) grow(n);
    return data_.get() + size_;
  }
  // Takes the bytes written since room() up to `end`.
  void commit(const char* end) { size_ = static_cast<size_t>(end - data_.get()); }

  void append(std::string_view s) {
    if (s.empty()) return;  // data_ may be null
    std::memcpy(room(s.size()), s.data(), s.size());
    size_ += s.size();
  }
  void append(char c) {
    *room(1) = c;
    ++size_;
  }

  [[nodiscard]] const char* data() const { return data_.get(); }
  [[nodiscard]] size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] std::string_view view() const { return {data_.get(), size_}; }
  // Empties the buffer and keeps its memory.
  void clear() { size_ = 0; }

 private:
  // At least doubles, so appends stay amortised O(1).
  void grow(size_t n) {
    size_t capacity = capacity_ < 4096 ? 4096 : capacity_ * 2;
    if (capacity < size_ + n) capacity = size_ + n;
    auto data = std::make_unique_for_overwrite<char[]>(capacity);
    if (size_ != 0) std::memcpy(data.get(), data_.get(), size_);
    data_ = std::move(data);
    capacity_ = capacity;
  }

  std::unique_ptr<char[]> data_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace strobe
