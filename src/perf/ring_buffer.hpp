// RingBuffer: the reader side of one perf event's mmapped ring (one metadata
// page, perf_event_mmap_page, followed by 2^n data pages).
//
// Owns: the mapping (unmapped on destruction) when made by map(); nothing when
// made by overMemory() (the caller keeps that memory alive). It does not own
// the event fd: the mapping stays valid after the fd is closed.
// Protocol (linux/perf_event.h): load data_head with acquire semantics, read
// records from data_tail up to it, then store data_tail with release
// semantics so the kernel may reuse the space only after we read it.
// Thread safety: one reader thread per ring; none internally.
// Async-signal safety: drain() allocates only when a wrapped record is larger
// than any seen before (the scratch buffer grows to at most 64 KiB once);
// otherwise it is allocation- and lock-free. map() is not.
#pragma once

#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "base/mmap.hpp"
#include "base/result.hpp"

namespace strobe::perf {

class RingBuffer {
 public:
  RingBuffer() = default;  // an empty ring: drain() returns 0
  // A moved-from ring is empty.
  RingBuffer(RingBuffer&& o) noexcept { *this = std::move(o); }
  RingBuffer& operator=(RingBuffer&& o) noexcept {
    if (this != &o) {
      mapping_ = std::move(o.mapping_);
      meta_ = std::exchange(o.meta_, nullptr);
      data_ = std::exchange(o.data_, nullptr);
      data_size_ = std::exchange(o.data_size_, 0);
      scratch_ = std::move(o.scratch_);
      corrupt_ = std::exchange(o.corrupt_, 0);
    }
    return *this;
  }
  RingBuffer(const RingBuffer&) = delete;
  RingBuffer& operator=(const RingBuffer&) = delete;

  // Maps 1 + data_pages pages of `fd` read-write. data_pages must be a power
  // of two (kUsage error otherwise); EPERM (over kernel.perf_event_mlock_kb)
  // gives a kPermission error whose hint says how to raise it.
  static Result<RingBuffer> map(int fd, size_t data_pages);

  // A ring over caller-provided memory (tests, replay). data_size must be a
  // nonzero power of two; kUsage error otherwise.
  static Result<RingBuffer> overMemory(perf_event_mmap_page* meta, uint8_t* data, size_t data_size);

  // Calls on_record(const perf_event_header* hdr, const uint8_t* bytes,
  // size_t size) for every complete record between data_tail and data_head,
  // in order. bytes (== hdr) is contiguous and 8-byte aligned, valid only
  // during the call; size is hdr->size. A record that wraps the end of the
  // data area is copied into a scratch buffer first. A corrupt header (size
  // below 8, not a multiple of 8, or beyond the written data) stops the drain: the rest of the
  // written data is discarded (record boundaries are lost) and
  // corruptCount() goes up. Returns the number of records delivered.
  template <typename F>
  size_t drain(F&& on_record) {
    if (meta_ == nullptr) return 0;
    const uint64_t head = loadHead();
    uint64_t tail = loadTail();
    size_t n = 0;
    if (head - tail > data_size_) {  // the kernel never writes past our tail
      ++corrupt_;
      storeTail(head);
      return 0;
    }
    while (head - tail >= sizeof(perf_event_header)) {
      perf_event_header hdr;
      copyOut(tail, &hdr, sizeof hdr);
      // The kernel's records are whole multiples of 8 bytes: one that is
      // not would leave the next misaligned for decoding in place.
      if (hdr.size < sizeof hdr || hdr.size % 8 != 0 || hdr.size > head - tail) break;
      const uint8_t* bytes = contiguous(tail, hdr.size);
      on_record(reinterpret_cast<const perf_event_header*>(bytes), bytes,
                static_cast<size_t>(hdr.size));
      tail += hdr.size;
      ++n;
    }
    if (tail != head) {  // a bad header, or a partial one
      ++corrupt_;
      tail = head;
    }
    storeTail(tail);
    return n;
  }

  // Bytes written by the kernel and not yet drained.
  [[nodiscard]] uint64_t pendingBytes() const;
  // Corrupt headers met so far (each discarded the rest of a drain).
  [[nodiscard]] uint64_t corruptCount() const { return corrupt_; }
  [[nodiscard]] size_t dataSize() const { return data_size_; }
  [[nodiscard]] bool valid() const { return meta_ != nullptr; }

 private:
  RingBuffer(Mmap mapping, perf_event_mmap_page* meta, uint8_t* data, size_t data_size)
      : mapping_(std::move(mapping)), meta_(meta), data_(data), data_size_(data_size) {}

  [[nodiscard]] uint64_t loadHead() const;
  [[nodiscard]] uint64_t loadTail() const;
  void storeTail(uint64_t tail);
  // Copies n bytes at ring position pos (wrapping) to out.
  void copyOut(uint64_t pos, void* out, size_t n) const;
  // The record at pos as contiguous bytes: in place, or copied to scratch_.
  const uint8_t* contiguous(uint64_t pos, size_t size);

  Mmap mapping_;
  perf_event_mmap_page* meta_ = nullptr;
  uint8_t* data_ = nullptr;
  size_t data_size_ = 0;           // a power of two
  std::vector<uint64_t> scratch_;  // u64 elements keep copied records aligned
  uint64_t corrupt_ = 0;
};

}  // namespace strobe::perf
