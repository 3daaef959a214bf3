// ByteReader: a bounds-checked cursor over untrusted bytes (perf records,
// file contents). Every read says whether it fit; nothing reads past the end.
// Thread safety: a value type. Async-signal-safe (no allocation).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

namespace strobe {

class ByteReader {
 public:
  ByteReader(const void* data, size_t size) : p_(static_cast<const uint8_t*>(data)), size_(size) {}

  [[nodiscard]] size_t offset() const { return pos_; }
  [[nodiscard]] size_t remaining() const { return size_ - pos_; }
  [[nodiscard]] const uint8_t* cursor() const { return p_ + pos_; }

  template <typename T>
  bool read(T& out) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (remaining() < sizeof(T)) return false;
    std::memcpy(&out, p_ + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }
  bool skip(size_t n) {
    if (remaining() < n) return false;
    pos_ += n;
    return true;
  }
  // A view of the next n bytes, advancing past them.
  bool bytes(size_t n, const uint8_t*& out) {
    if (remaining() < n) return false;
    out = p_ + pos_;
    pos_ += n;
    return true;
  }
  // A NUL-terminated string within the next `field` bytes (field padded).
  bool cstring(size_t field, std::string_view& out) {
    if (remaining() < field) return false;
    const char* s = reinterpret_cast<const char*>(p_ + pos_);
    out = std::string_view(s, ::strnlen(s, field));
    pos_ += field;
    return true;
  }

 private:
  const uint8_t* p_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace strobe
