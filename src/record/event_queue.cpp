#include "record/event_queue.hpp"

#include <algorithm>
#include <cstring>
#include <variant>

namespace strobe::record {
namespace {

uint64_t timeOf(const perf::Record& r) {
  return std::visit(
      [](const auto& v) -> uint64_t {
        if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::monostate>) {
          return 0;
        } else {
          return v.time;
        }
      },
      r);
}

}  // namespace

void EventQueue::push(const perf_event_header* hdr, const uint8_t* bytes, size_t size,
                      uint8_t source) {
  auto rec = perf::decodeRecord(hdr, bytes, size, sample_type_, regs_user_mask_);
  if (!rec.ok()) {
    ++malformed_;
    return;
  }
  if (std::holds_alternative<std::monostate>(*rec)) return;  // a type strobe does not use
  uint64_t t = timeOf(*rec);
  size_t offset = arena_.size();
  // Keep each record 8-byte aligned so decoding can read u64 fields in place.
  // insert, not resize + memcpy: no zero-filling of 16 KiB stack copies.
  arena_.insert(arena_.end(), bytes, bytes + size);
  arena_.resize(offset + alignedSize(size));
  live_bytes_ += alignedSize(size);
  entries_.push_back(Entry{t, offset, static_cast<uint32_t>(size), source, false});
}

void EventQueue::pushRaw(uint64_t time, const uint8_t* bytes, size_t size, uint8_t source) {
  size_t offset = arena_.size();
  arena_.insert(arena_.end(), bytes, bytes + size);
  arena_.resize(offset + alignedSize(size));
  live_bytes_ += alignedSize(size);
  entries_.push_back(Entry{time, offset, static_cast<uint32_t>(size), source, true});
}

void EventQueue::sortPending() {
  std::stable_sort(entries_.begin(), entries_.end(),
                   [](const Entry& a, const Entry& b) { return a.time < b.time; });
}

void EventQueue::drop(size_t n) {
  if (n == 0) return;
  if (n == entries_.size()) {
    entries_.clear();
    arena_.clear();
    live_bytes_ = 0;
    return;
  }
  for (size_t i = 0; i < n; ++i) live_bytes_ -= alignedSize(entries_[i].size);
  entries_.erase(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(n));
  // Compact only when most of the arena is dead, so each byte is copied a
  // bounded number of times (records with stack copies are 16 KiB each).
  // In place, in offset order: the arena keeps its (already faulted-in)
  // capacity instead of a fresh allocation per compaction.
  if (arena_.size() <= 2 * live_bytes_ + kCompactSlack) return;
  order_.resize(entries_.size());
  for (size_t i = 0; i < order_.size(); ++i) order_[i] = i;
  std::sort(order_.begin(), order_.end(),
            [&](size_t a, size_t b) { return entries_[a].offset < entries_[b].offset; });
  size_t cursor = 0;
  for (size_t i : order_) {
    Entry& e = entries_[i];
    if (e.offset != cursor) std::memmove(&arena_[cursor], &arena_[e.offset], e.size);
    e.offset = cursor;
    cursor += alignedSize(e.size);
  }
  arena_.resize(cursor);
}

}  // namespace strobe::record
