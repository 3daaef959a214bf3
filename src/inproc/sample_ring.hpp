// SampleRing: a fixed-capacity single-producer, single-consumer ring of
// samples (a time, a weight and up to max_depth frames, leaf first).
//
// The producer is the SIGPROF handler of one thread: tryWrite() neither
// allocates nor locks, and is async-signal-safe. The consumer (the drain
// thread) reads committed slots with drain(). When the ring is full a sample
// is dropped and counted (dropped()).
// Owns: its slots (allocated by the constructor, off the signal path).
// Thread safety: one producer and one consumer at a time.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace strobe::inproc {

class SampleRing {
 public:
  // capacity is rounded up to a power of two (at least 2).
  SampleRing(uint32_t capacity, uint32_t max_depth);

  // The slot to fill, or nullptr (and a drop counted) when the ring is full.
  // Fill up to maxDepth() frames, then commit(). Async-signal-safe.
  uint64_t* beginWrite() {
    uint64_t head = head_.load(std::memory_order_relaxed);
    if (head - tail_.load(std::memory_order_acquire) >= capacity_) {
      dropped_.fetch_add(1, std::memory_order_relaxed);
      return nullptr;
    }
    return slot(head) + kHeader;
  }
  void commit(uint64_t time_ns, uint64_t weight, uint32_t depth) {
    uint64_t head = head_.load(std::memory_order_relaxed);
    uint64_t* s = slot(head);
    s[0] = time_ns;
    s[1] = weight;
    s[2] = depth;
    head_.store(head + 1, std::memory_order_release);
  }

  // Calls f(time_ns, weight, frames, depth) for each committed sample.
  template <typename F>
  size_t drain(F&& f) {
    uint64_t head = head_.load(std::memory_order_acquire);
    uint64_t tail = tail_.load(std::memory_order_relaxed);
    size_t n = 0;
    for (; tail != head; ++tail, ++n) {
      const uint64_t* s = slot(tail);
      f(s[0], s[1], s + kHeader, static_cast<uint32_t>(s[2]));
    }
    tail_.store(tail, std::memory_order_release);
    return n;
  }

  [[nodiscard]] uint32_t maxDepth() const { return max_depth_; }
  [[nodiscard]] uint32_t capacity() const { return capacity_; }
  // The bytes of slots a ring of this capacity (rounded as the constructor
  // does) and depth allocates.
  static uint64_t bytesFor(uint32_t capacity, uint32_t max_depth);
  [[nodiscard]] uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

 private:
  static constexpr uint32_t kHeader = 3;  // time, weight, depth
  uint64_t* slot(uint64_t i) { return slots_.get() + (i & (capacity_ - 1)) * stride_; }

  uint32_t capacity_;
  uint32_t max_depth_;
  uint32_t stride_;
  std::unique_ptr<uint64_t[]> slots_;
  std::atomic<uint64_t> head_{0};
  std::atomic<uint64_t> tail_{0};
  std::atomic<uint64_t> dropped_{0};
};

}  // namespace strobe::inproc
