// EventQueue: puts records from many rings (one per CPU) back in time order
// before the converter sees them. The recorder pushes everything one drain
// pass read, then flushes what is older than the moment that pass started:
// any record still unread carries a later timestamp, so the flushed prefix
// is final. Records are kept as raw bytes (the ring's memory is reused) and
// decoded again on flush. Each record keeps a source tag (which event's
// ring it came from), handed back with it. Records in another format than
// perf's (a capture engine's own, pushRaw) are kept as they are, with the
// time the engine read from them, and handed back as bytes.
// Thread safety: none (the drain thread's).
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <type_traits>
#include <vector>

#include "perf/records.hpp"

namespace strobe::record {

class EventQueue {
 public:
  // sample_type and regs_user_mask: the attr's sample_type and sample_regs_user.
  explicit EventQueue(uint64_t sample_type, uint64_t regs_user_mask = 0)
      : sample_type_(sample_type), regs_user_mask_(regs_user_mask) {}

  // Copies one record in, tagged with `source`. A record that does not
  // decode is counted and dropped.
  void push(const perf_event_header* hdr, const uint8_t* bytes, size_t size, uint8_t source = 0);
  // Copies one record in another format in, at `time` (the clock of perf's
  // records: CLOCK_MONOTONIC). size < 4 GiB.
  void pushRaw(uint64_t time, const uint8_t* bytes, size_t size, uint8_t source);

  // Hands every record with time < `before` to sink(const perf::Record&,
  // uint8_t source) (or sink(const perf::Record&)), in time order (stable
  // for equal times), and forgets them.
  template <typename Sink>
  void flushBefore(uint64_t before, Sink&& sink) {
    flushBefore(before, sink, [](const uint8_t*, size_t, uint8_t) {});
  }
  // As above; records pushed with pushRaw go to raw(const uint8_t* bytes,
  // size_t size, uint8_t source) (8-byte aligned).
  template <typename Sink, typename RawSink>
  void flushBefore(uint64_t before, Sink&& sink, RawSink&& raw) {
    sortPending();
    size_t n = 0;
    for (; n < entries_.size() && entries_[n].time < before; ++n) {
      const Entry& e = entries_[n];
      if (e.raw) {
        raw(&arena_[e.offset], static_cast<size_t>(e.size), e.source);
        continue;
      }
      auto rec = perf::decodeRecord(reinterpret_cast<const perf_event_header*>(&arena_[e.offset]),
                                    &arena_[e.offset], e.size, sample_type_, regs_user_mask_);
      if (!rec.ok()) continue;
      if constexpr (std::is_invocable_v<Sink, const perf::Record&, uint8_t>) {
        sink(*rec, e.source);
      } else {
        sink(*rec);
      }
    }
    drop(n);
  }
  template <typename Sink>
  void flushAll(Sink&& sink) {
    flushBefore(UINT64_MAX, sink);
  }
  template <typename Sink, typename RawSink>
  void flushAll(Sink&& sink, RawSink&& raw) {
    flushBefore(UINT64_MAX, sink, raw);
  }

  [[nodiscard]] uint64_t malformed() const { return malformed_; }
  [[nodiscard]] size_t pending() const { return entries_.size(); }

 private:
  struct Entry {
    uint64_t time;
    size_t offset;
    uint32_t size;  // a perf record is at most 64 KiB
    uint8_t source;
    bool raw;  // pushRaw: not a perf record
  };
  void sortPending();
  void drop(size_t n);
  static size_t alignedSize(size_t size) { return (size + 7) & ~size_t{7}; }
  static constexpr size_t kCompactSlack = 1 << 20;

  uint64_t sample_type_;
  uint64_t regs_user_mask_;
  std::vector<uint8_t> arena_;
  std::vector<Entry> entries_;
  size_t live_bytes_ = 0;      // arena bytes still referenced by entries_
  std::vector<size_t> order_;  // scratch for compaction
  uint64_t malformed_ = 0;
};

}  // namespace strobe::record
