// The program's side of the span channel (layout.hpp): Producer makes the
// process's channel and runs the slow paths (claiming a thread's slot,
// interning a span name, setting a role); SlotWriter is one thread's handle
// on its ring, the hot path: append() copies a record and publishes it with
// one release store, with no lock, no allocation and no system call. When
// the ring is full the record is dropped and counted (never waits); if a
// reader has not drained for kStaleReaderNs then, it is taken out of the
// gate, so a reader that died (strobe killed) costs the program nothing for
// long.
//
// Owns: Producer owns the mapping (and the memfd) until destroyed; slots and
// names live in it. Thread safety: Producer's functions are thread-safe
// (names take a mutex on a miss only); a SlotWriter belongs to the thread
// that claimed its slot. Nothing here is async-signal-safe.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <string_view>

#include "base/result.hpp"
#include "channel/layout.hpp"

namespace strobe::channel {

class Producer {
 public:
  // A new, empty channel with no reader: a sealed memfd named kMemfdName,
  // or anonymous shared memory where memfd_create is refused (then only
  // this process can read it: fd() is -1).
  static Result<std::unique_ptr<Producer>> create();
  ~Producer();
  Producer(const Producer&) = delete;
  Producer& operator=(const Producer&) = delete;

  [[nodiscard]] Header* header() const { return reinterpret_cast<Header*>(base_); }
  [[nodiscard]] uint8_t* base() const { return base_; }
  [[nodiscard]] size_t size() const { return size_; }
  [[nodiscard]] int fd() const { return fd_; }

  // A free slot for thread `tid` (or a retired one every active reader has
  // drained), with an empty role; nullptr when every slot is taken.
  SlotHeader* claimSlot(int32_t tid);
  // The thread is gone; readers drain what it left before it is reused.
  static void retireSlot(SlotHeader* s) { s->state.store(kRetired, std::memory_order_release); }
  [[nodiscard]] uint8_t* ringOf(const SlotHeader* s) const {
    return reinterpret_cast<uint8_t*>(const_cast<SlotHeader*>(s)) + kSlotHeaderBytes;
  }

  // The id of the span name at `name` (interned by address: the string must
  // live as long as the process); kNoName when the name table is full.
  uint32_t nameId(const char* name) {
    const size_t mask = kLookupSlots - 1;
    for (size_t i = lookupHash(name) & mask;; i = (i + 1) & mask) {
      const char* k = lookup_[i].key.load(std::memory_order_acquire);
      if (k == name) return lookup_[i].id.load(std::memory_order_relaxed);
      if (k == nullptr) return insertName(name);
    }
  }

  // Sets the slot's role (its owner thread only): "" for none, index < 0
  // for no index. Text longer than kRoleBytes - 1 is cut.
  static void setRole(SlotHeader* s, std::string_view role, int32_t index);

 private:
  Producer(uint8_t* base, size_t size, int fd);
  static size_t lookupHash(const char* p) {
    auto v = reinterpret_cast<uintptr_t>(p);
    return static_cast<size_t>((v * 0x9E3779B97F4A7C15ULL) >> 40);
  }
  uint32_t insertName(const char* name);

  static constexpr size_t kLookupSlots = size_t{kMaxNames} * 2;
  struct Lookup {
    std::atomic<const char*> key{nullptr};
    std::atomic<uint32_t> id{0};
  };
  uint8_t* base_;
  size_t size_;
  int fd_;
  std::mutex names_mu_;
  size_t lookup_used_ = 0;
  std::unique_ptr<Lookup[]> lookup_;
};

// Joins `reader` on behalf of process `pid` from the program's side (a
// launched program pre-joins the strobe named in STROBE_CHANNEL so nothing
// is lost before strobe maps the channel). Readers join themselves with
// Consumer::join.
void joinReader(Header* h, int reader, int32_t pid, uint64_t now_ns);
// Takes `reader` out of the gate if it is still `pid`'s.
void leaveReader(Header* h, int reader, int32_t pid);

// One thread's writer on its slot. attach() once the slot is claimed;
// reset() whenever the gate's generation changed (a reader joined).
class SlotWriter {
 public:
  void attach(Header* h, SlotHeader* s, uint8_t* ring) {
    header_ = h;
    slot_ = s;
    ring_ = ring;
    reset();
  }
  [[nodiscard]] bool attached() const { return slot_ != nullptr; }
  [[nodiscard]] SlotHeader* slot() const { return slot_; }
  void detach() { slot_ = nullptr; }

  void reset() {
    head_ = slot_->head.load(std::memory_order_relaxed);
    limit_ = 0;  // refreshed by the next append
  }

  // Appends one record of `size` bytes (a multiple of 8, the record's
  // header first). false: the ring was full; the record is dropped and
  // counted. now_ns: CLOCK_MONOTONIC, to tell stale readers.
  bool append(const void* rec, uint32_t size, uint64_t now_ns) {
    uint64_t h = head_;
    const uint32_t off = static_cast<uint32_t>(h) & (kRingBytes - 1);
    const uint32_t room = kRingBytes - off;
    const uint64_t end = h + (room < size ? room : 0) + size;
    if (end > limit_ && !refresh(end, now_ns)) [[unlikely]] {
      return false;
    }
    if (room < size) {
      const RecordHeader pad{kPad, 8, 0};
      std::memcpy(ring_ + off, &pad, sizeof pad);
      h += room;
    }
    std::memcpy(ring_ + (static_cast<uint32_t>(h) & (kRingBytes - 1)), rec, size);
    head_ = h + size;
    slot_->head.store(head_, std::memory_order_release);
    return true;
  }

  // Counts a span nested deeper than the program keeps.
  void countTooDeep() {
    slot_->too_deep.store(slot_->too_deep.load(std::memory_order_relaxed) + 1,
                          std::memory_order_relaxed);
  }

 private:
  // Recomputes the limit from the active readers' tails; false when `end`
  // is still beyond it (then drops and counts).
  bool refresh(uint64_t end, uint64_t now_ns);

  Header* header_ = nullptr;
  SlotHeader* slot_ = nullptr;
  uint8_t* ring_ = nullptr;
  uint64_t head_ = 0;
  uint64_t limit_ = 0;  // appends may go up to here without reading the tails
  uint64_t last_stale_check_ns_ = 0;
};

}  // namespace strobe::channel
