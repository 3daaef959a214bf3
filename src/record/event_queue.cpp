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

void EventQueue::push(const perf_event_header* hdr, const uint8_t* bytes, size_t size) {
  auto rec = perf::decodeRecord(hdr, bytes, size, sample_type_, regs_user_mask_);
  if (!rec.ok()) {
    ++malformed_;
    return;
  }
  if (std::holds_alternative<std::monostate>(*rec)) return;  // a type strobe does not use
  uint64_t t = timeOf(*rec);
  size_t offset = arena_.size();
  // Keep each record 8-byte aligned so decoding can read u64 fields in place.
  arena_.resize(offset + ((size + 7) & ~size_t{7}));
  std::memcpy(&arena_[offset], bytes, size);
  entries_.push_back(Entry{t, offset, size});
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
    return;
  }
  // Compact: move what remains to the front of a fresh arena.
  std::vector<uint8_t> arena;
  arena.reserve(arena_.size());
  std::vector<Entry> rest;
  rest.reserve(entries_.size() - n);
  for (size_t i = n; i < entries_.size(); ++i) {
    Entry e = entries_[i];
    size_t offset = arena.size();
    arena.resize(offset + ((e.size + 7) & ~size_t{7}));
    std::memcpy(&arena[offset], &arena_[e.offset], e.size);
    e.offset = offset;
    rest.push_back(e);
  }
  arena_ = std::move(arena);
  entries_ = std::move(rest);
}

}  // namespace strobe::record
