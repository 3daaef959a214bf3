// Mmap: owns one memory mapping and unmaps it on destruction.
// adviseHugePages: asks the kernel to back a large buffer with transparent
// huge pages (a hint; ignored where THP is off).
// Thread safety: none (a value type).
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <utility>

namespace strobe {

// Advises MADV_HUGEPAGE for the whole 2 MiB pages inside [p, p + bytes): a
// freshly reserved buffer of tens of MB then faults in 2 MiB at a time
// instead of 4 KiB. A hint only: errors are ignored.
inline void adviseHugePages(const void* p, size_t bytes) {
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  auto begin = (reinterpret_cast<uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
  auto end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kHuge - 1);
  if (end > begin) {
    (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
  }
}

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
