// Mmap: owns one memory mapping and unmaps it on destruction.
// Thread safety: none (a value type).
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <utility>

namespace strobe {

class Mmap {
 public:
  Mmap() = default;
  Mmap(void* addr, size_t size) : addr_(addr), size_(size) {}
  Mmap(Mmap&& o) noexcept
      : addr_(std::exchange(o.addr_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  Mmap& operator=(Mmap&& o) noexcept {
    if (this != &o) {
      reset();
      addr_ = std::exchange(o.addr_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  Mmap(const Mmap&) = delete;
  Mmap& operator=(const Mmap&) = delete;
  ~Mmap() { reset(); }

  [[nodiscard]] void* data() const { return addr_; }
  [[nodiscard]] size_t size() const { return size_; }
  [[nodiscard]] bool valid() const { return addr_ != nullptr; }
  void reset() {
    if (addr_ != nullptr) ::munmap(addr_, size_);
    addr_ = nullptr;
    size_ = 0;
  }

 private:
  void* addr_ = nullptr;
  size_t size_ = 0;
};

}  // namespace strobe
