// OffsetMap: a memo keyed by .debug_info offsets (function names per DIE,
// dwarf_index.cpp), held in one array probed linearly: a lookup reads the
// slot its key hashes to and, rarely, the next ones. std::unordered_map
// read a bucket, the node before the bucket's first and that node, three
// cache misses on a memo of ~10,000 DIEs met in no particular order.
//
// Key 0 is not a DIE (a unit header starts there) and marks an empty slot.
// Values are copied in and out: a slot moves when the array grows.
// Thread safety: none.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace strobe::symbolize {

template <typename V>
class OffsetMap {
 public:
  // The value stored for `key`, or nullptr.
  [[nodiscard]] const V* find(uint64_t key) const {
    if (slots_.empty() || key == 0) return nullptr;
    for (size_t i = home(key);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.key == key) return &s.value;
      if (s.key == 0) return nullptr;
    }
  }

  // Stores `value` for `key` (not 0), replacing what was there.
  void insert(uint64_t key, const V& value) {
    if (key == 0) return;
    if ((size_ + 1) * 2 > slots_.size()) grow(slots_.empty() ? 16 : slots_.size() * 2);
    Slot& s = probe(key);
    if (s.key == 0) ++size_;
    s.key = key;
    s.value = value;
  }

  // Makes room for `n` keys without growing again.
  void reserve(size_t n) {
    size_t want = 16;
    while (want < n * 2) want *= 2;
    if (want > slots_.size()) grow(want);
  }

  [[nodiscard]] size_t size() const { return size_; }

 private:
  struct Slot {
    uint64_t key = 0;
    V value{};
  };

  [[nodiscard]] size_t home(uint64_t key) const {
    // Fibonacci hashing: offsets are multiples of small strides, spread
    // them over the high bits.
    return static_cast<size_t>((key * 0x9e3779b97f4a7c15ULL) >> shift_) & mask_;
  }

  Slot& probe(uint64_t key) {
    for (size_t i = home(key);; i = (i + 1) & mask_) {
      if (slots_[i].key == key || slots_[i].key == 0) return slots_[i];
    }
  }

  void grow(size_t capacity) {  // capacity: a power of two
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.resize(capacity);
    mask_ = capacity - 1;
    shift_ = 64;
    for (size_t c = capacity; c > 1; c >>= 1) --shift_;
    for (const Slot& s : old) {
      if (s.key != 0) probe(s.key) = s;
    }
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  unsigned shift_ = 64;
  size_t size_ = 0;
};

}  // namespace strobe::symbolize
