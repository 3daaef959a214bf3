#include "perf/ring_buffer.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstring>
#include <string>

#include "perf/proc_file.hpp"

namespace strobe::perf {
namespace {

bool isPowerOfTwo(size_t n) {
  return n != 0 && (n & (n - 1)) == 0;
}

Error mapError(int err, size_t map_bytes) {
  const std::string kib = std::to_string(map_bytes / 1024);
  if (err == EPERM) {
    uint64_t limit_kb = 0;
    if (auto text = readProcFile("/proc/sys/kernel/perf_event_mlock_kb"); text.ok()) {
      (void)parseNumber(*text, limit_kb);
    }
    const uint64_t want = std::bit_ceil(std::max<uint64_t>(limit_kb * 2, map_bytes / 1024 * 2));
    std::string limit = limit_kb != 0 ? " (" + std::to_string(limit_kb) + " KiB per CPU)" : "";
    return makeError("cannot map a " + kib + " KiB perf ring: over kernel.perf_event_mlock_kb" +
                         limit + ", the locked-memory budget for unprivileged users",
                     "use fewer ring pages (--mmap-pages), or run: sudo sysctl "
                     "kernel.perf_event_mlock_kb=" +
                         std::to_string(want),
                     ErrorKind::kPermission);
  }
  Error e = makeError("cannot map a " + kib + " KiB perf ring",
                      err == EINVAL ? "an inherited event must be opened per CPU (cpu != -1) to "
                                      "be mapped"
                                    : "");
  e.errnum = err;
  return e;
}

}  // namespace

Result<RingBuffer> RingBuffer::map(int fd, size_t data_pages) {
  if (!isPowerOfTwo(data_pages) || data_pages > (size_t{1} << 30)) {
    return makeError(
        "the perf ring must be a power of two pages, not " + std::to_string(data_pages),
        "use --mmap-pages with 1, 2, 4, ... (e.g. 64)", ErrorKind::kUsage);
  }
  const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t len = (data_pages + 1) * page;
  void* p = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return mapError(errno, len);
  Mmap mapping(p, len);
  auto* meta = static_cast<perf_event_mmap_page*>(p);
  // Kernels since 4.1 state where the data area is; older ones imply it.
  uint64_t offset = meta->data_offset != 0 ? meta->data_offset : page;
  uint64_t size = meta->data_size != 0 ? meta->data_size : data_pages * page;
  if (offset > len || size > len - offset || !isPowerOfTwo(size)) {
    return makeError("the perf ring's metadata page is inconsistent (data_offset " +
                         std::to_string(offset) + ", data_size " + std::to_string(size) + ")",
                     {}, ErrorKind::kCorrupt);
  }
  return RingBuffer(std::move(mapping), meta, static_cast<uint8_t*>(p) + offset, size);
}

Result<RingBuffer> RingBuffer::overMemory(perf_event_mmap_page* meta, uint8_t* data,
                                          size_t data_size) {
  if (meta == nullptr || data == nullptr || !isPowerOfTwo(data_size)) {
    return makeError("a ring needs a metadata page and a power-of-two data area, not " +
                         std::to_string(data_size) + " bytes",
                     {}, ErrorKind::kUsage);
  }
  return RingBuffer(Mmap(), meta, data, data_size);
}

uint64_t RingBuffer::loadHead() const {
  return std::atomic_ref<__u64>(meta_->data_head).load(std::memory_order_acquire);
}

uint64_t RingBuffer::loadTail() const {
  // Only this reader writes data_tail.
  return std::atomic_ref<__u64>(meta_->data_tail).load(std::memory_order_relaxed);
}

void RingBuffer::storeTail(uint64_t tail) {
  // Release: every read of the records happens before the kernel sees the
  // space as free (the smp_mb() the kernel header asks for).
  std::atomic_ref<__u64>(meta_->data_tail).store(tail, std::memory_order_release);
}

uint64_t RingBuffer::pendingBytes() const {
  if (meta_ == nullptr) return 0;
  return loadHead() - loadTail();
}

void RingBuffer::copyOut(uint64_t pos, void* out, size_t n) const {
  const size_t offset = static_cast<size_t>(pos & (data_size_ - 1));
  const size_t first = std::min(n, data_size_ - offset);
  std::memcpy(out, data_ + offset, first);
  if (first < n) std::memcpy(static_cast<uint8_t*>(out) + first, data_, n - first);
}

const uint8_t* RingBuffer::contiguous(uint64_t pos, size_t size) {
  const size_t offset = static_cast<size_t>(pos & (data_size_ - 1));
  if (offset + size <= data_size_) return data_ + offset;
  const size_t words = (size + 7) / 8;
  if (scratch_.size() < words) scratch_.resize(words);
  auto* out = reinterpret_cast<uint8_t*>(scratch_.data());
  copyOut(pos, out, size);
  return out;
}

}  // namespace strobe::perf
