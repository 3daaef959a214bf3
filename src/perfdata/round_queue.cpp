#include "perfdata/round_queue.hpp"

#include <algorithm>
#include <cstring>

namespace strobe::perfdata {
namespace {

constexpr size_t kBlockBytes = 1 << 20;
// Emptied blocks kept for reuse rather than freed.
constexpr size_t kSpareBlocks = 4;

}  // namespace

void RoundQueue::push(uint64_t time, uint32_t event, const uint8_t* bytes, size_t size) {
  const size_t aligned = (size + 7) & ~size_t{7};
  if (current_ == UINT32_MAX || blocks_[current_].used + aligned > blocks_[current_].capacity) {
    if (current_ != UINT32_MAX && blocks_[current_].live == 0) drop(current_);
    current_ = newBlock(aligned);
  }
  Block& b = blocks_[current_];
  std::memcpy(b.data.get() + b.used, bytes, size);
  if (!entries_.empty() && time < entries_.back().time) sorted_ = false;
  entries_.push_back(Entry{time, seq_++, event, static_cast<uint32_t>(size), current_,
                           static_cast<uint32_t>(b.used)});
  b.used += aligned;
  ++b.live;
  max_time_ = std::max(max_time_, time);
}

size_t RoundQueue::sortUpTo(uint64_t limit) {
  if (!sorted_) {
    std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
      return a.time != b.time ? a.time < b.time : a.seq < b.seq;
    });
    sorted_ = true;
  }
  if (limit == UINT64_MAX) return entries_.size();
  auto end = std::upper_bound(entries_.begin(), entries_.end(), limit,
                              [](uint64_t t, const Entry& e) { return t < e.time; });
  return static_cast<size_t>(end - entries_.begin());
}

uint32_t RoundQueue::newBlock(size_t bytes) {
  if (!free_blocks_.empty() && bytes <= kBlockBytes) {
    const uint32_t id = free_blocks_.back();
    free_blocks_.pop_back();
    return id;
  }
  uint32_t id = 0;
  if (!dead_blocks_.empty()) {
    id = dead_blocks_.back();
    dead_blocks_.pop_back();
  } else {
    id = static_cast<uint32_t>(blocks_.size());
    blocks_.emplace_back();
  }
  Block& b = blocks_[id];
  b.capacity = std::max(kBlockBytes, bytes);
  b.data.reset(new uint8_t[b.capacity]);
  held_bytes_ += b.capacity;
  peak_bytes_ = std::max(peak_bytes_, held_bytes_);
  return id;
}

void RoundQueue::drop(uint32_t id) {
  Block& b = blocks_[id];
  b.used = 0;
  if (b.capacity == kBlockBytes && free_blocks_.size() < kSpareBlocks) {
    free_blocks_.push_back(id);
    return;
  }
  held_bytes_ -= b.capacity;
  b.data.reset();
  b.capacity = 0;
  dead_blocks_.push_back(id);
}

void RoundQueue::release(size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const uint32_t id = entries_[i].block;
    Block& b = blocks_[id];
    if (--b.live != 0) continue;
    if (id == current_) {
      b.used = 0;  // keep filling it from the start
    } else {
      drop(id);
    }
  }
  entries_.erase(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(n));
}

}  // namespace strobe::perfdata
