// RoundQueue: puts a perf.data file's records back in time order, as perf
// report does. perf record writes what it read from each CPU's ring in
// turn, so records of one pass interleave in time with the next pass's,
// but never with later ones: at each PERF_RECORD_FINISHED_ROUND, the
// records up to the latest time seen before the previous round's end are
// final (perf's ordered-events flush). Records are copied in (the caller's
// buffer is reused), 8-byte aligned, in blocks freed once every record in
// them has been handed on; so memory holds about two rounds.
// Owns: the copies. Thread safety: none.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace strobe::perfdata {

class RoundQueue {
 public:
  struct Entry {
    uint64_t time;
    uint64_t seq;  // arrival order: equal times keep it
    uint32_t event;
    uint32_t size;
    uint32_t block;
    uint32_t offset;
  };

  // Copies one record in.
  void push(uint64_t time, uint32_t event, const uint8_t* bytes, size_t size);
  // A FINISHED_ROUND: hands the records that are final to
  // sink(const uint8_t* bytes, size_t size, uint32_t event, uint64_t time).
  template <typename Sink>
  void finishRound(Sink&& sink) {
    flush(round_limit_, sink);
    round_limit_ = max_time_;
  }
  // The end of the data: everything, in order.
  template <typename Sink>
  void flushAll(Sink&& sink) {
    flush(UINT64_MAX, sink);
  }

  [[nodiscard]] size_t pending() const { return entries_.size(); }
  // The most bytes held at once (for the benchmark's memory figures).
  [[nodiscard]] size_t peakBytes() const { return peak_bytes_; }

 private:
  template <typename Sink>
  void flush(uint64_t limit, Sink& sink) {
    const size_t n = sortUpTo(limit);
    for (size_t i = 0; i < n; ++i) {
      const Entry& e = entries_[i];
      sink(blocks_[e.block].data.get() + e.offset, e.size, e.event, e.time);
    }
    release(n);
  }
  // Sorts the entries and returns how many have time <= limit.
  size_t sortUpTo(uint64_t limit);
  // Forgets the first n entries, freeing blocks nothing uses any more.
  void release(size_t n);
  // A block with room for `bytes`: a spare one, or a new one.
  uint32_t newBlock(size_t bytes);
  // Block `id` holds no record any more: kept as a spare, or freed.
  void drop(uint32_t id);

  struct Block {
    std::unique_ptr<uint8_t[]> data;
    size_t capacity = 0;
    size_t used = 0;
    size_t live = 0;  // entries still pointing into it
  };
  std::vector<Block> blocks_;
  std::vector<uint32_t> free_blocks_;  // emptied blocks, kept for reuse
  std::vector<uint32_t> dead_blocks_;  // slots of freed blocks
  uint32_t current_ = UINT32_MAX;      // the block being filled
  std::vector<Entry> entries_;
  uint64_t seq_ = 0;
  uint64_t max_time_ = 0;
  uint64_t round_limit_ = 0;
  bool sorted_ = true;
  size_t held_bytes_ = 0;
  size_t peak_bytes_ = 0;
};

}  // namespace strobe::perfdata
