// The reader's side of the span channel (layout.hpp): map a channel (one
// received from another process, or the process's own), join as a reader,
// and drain every thread's ring into a Sink. The program may be hostile or
// buggy: the layout is validated once and copied (never re-read), every
// offset and size read later is bounds-checked, and a channel that is not
// sealed against shrinking is refused (a shrunk mapping would fault).
//
// Owns: the mapping (and descriptor) of an opened channel; a borrowed one is
// the caller's. Thread safety: one thread at a time per Consumer. Sink
// callbacks run on the draining thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/fd.hpp"
#include "base/mmap.hpp"
#include "base/result.hpp"
#include "channel/layout.hpp"

namespace strobe::channel {

struct SpanEvent {
  int32_t tid = 0;
  uint32_t depth = 0;
  uint64_t start_ns = 0;  // CLOCK_MONOTONIC
  uint64_t end_ns = 0;
  std::string_view name;  // valid during the callback
};

class Sink {
 public:
  virtual ~Sink() = default;
  virtual void span(const SpanEvent& s) = 0;
  // A thread's role: ("worker", 3); index < 0 when it has none.
  virtual void role(int32_t tid, std::string_view role, int32_t index) = 0;
};

// What a reader missed (since it joined) and why.
struct ReaderStats {
  uint64_t spans = 0;      // delivered to the sink
  uint64_t dropped = 0;    // records the program dropped: a ring was full
  uint64_t too_deep = 0;   // spans nested deeper than the program keeps
  uint64_t no_slot = 0;    // spans of threads that found no free slot
  uint64_t overrun = 0;    // bytes overwritten before this reader read them
  uint64_t malformed = 0;  // records that made no sense (skipped)
  uint64_t rejoined = 0;   // the program had dropped this reader as stale
  [[nodiscard]] uint64_t lost() const { return dropped + too_deep + no_slot; }
};

class Consumer {
 public:
  // Maps a channel descriptor received from another process. Errors: kCorrupt
  // (not a channel, unsealed, inconsistent layout), kNotFound (not ready yet:
  // the program is still making it), kGeneric (mmap).
  static Result<std::unique_ptr<Consumer>> open(Fd fd);
  // Reads a channel mapped by this process (not unmapped by the Consumer).
  static Result<std::unique_ptr<Consumer>> borrow(void* base, size_t size);

  Consumer(const Consumer&) = delete;
  Consumer& operator=(const Consumer&) = delete;
  ~Consumer();  // leaves

  // Joins as `reader` for process `pid`: from now on the program records
  // for this reader. Fails (kUsage) when another live process holds it.
  Status join(int reader, int32_t pid);
  // Takes over the reader the program joined on our behalf (STROBE_CHANNEL),
  // keeping what it recorded since; joins afresh when it did not.
  Status adopt(int reader, int32_t pid);
  // Stops reading: the program records nothing more for this reader.
  void leave();
  [[nodiscard]] bool joined() const { return reader_ >= 0; }

  // Reads every ring's new records into `sink` and marks this reader alive.
  void drain(Sink& sink);

  // The process that made the channel (from its header).
  [[nodiscard]] int32_t producerPid() const { return producer_pid_; }
  [[nodiscard]] const ReaderStats& stats() const { return stats_; }

 private:
  Consumer() = default;
  static Result<std::unique_ptr<Consumer>> fromMapping(uint8_t* base, size_t size);
  [[nodiscard]] Header* header() const { return reinterpret_cast<Header*>(base_); }
  [[nodiscard]] SlotHeader* slot(uint32_t i) const {
    return reinterpret_cast<SlotHeader*>(base_ + slots_offset_ + uint64_t{i} * slot_bytes_);
  }
  void baseline(bool from_zero);
  void drainSlot(uint32_t i, Sink& sink);
  std::string_view name(uint32_t id);

  Fd fd_;
  Mmap map_;  // empty when borrowed
  uint8_t* base_ = nullptr;
  // The layout, as validated.
  uint32_t slot_count_ = 0, slot_bytes_ = 0, ring_bytes_ = 0, max_names_ = 0, name_bytes_ = 0;
  uint64_t names_offset_ = 0, slots_offset_ = 0;
  int32_t producer_pid_ = 0;

  int reader_ = -1;
  int32_t pid_ = 0;
  // CLOCK_MONOTONIC of this reader's join: spans that began before it are
  // not this reader's (the program records them for a reader that was
  // there), 0 when adopted (joined on our behalf before any span).
  uint64_t joined_ns_ = 0;
  struct SlotSeen {
    uint64_t dropped = 0;
    uint64_t too_deep = 0;
    uint32_t seq = 0;  // identity seqlock value last reported (0: none)
  };
  std::vector<SlotSeen> seen_;
  uint64_t no_slot_seen_ = 0;
  std::vector<std::string> names_;
  std::vector<uint8_t> scratch_;
  ReaderStats stats_;
};

}  // namespace strobe::channel
