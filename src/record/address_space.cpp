#include "record/address_space.hpp"

namespace strobe::record {

void AddressSpace::map(const Mapping& m) {
  if (m.end <= m.start) return;
  // Trim or split every mapping that overlaps [m.start, m.end).
  auto it = maps_.lower_bound(m.start);
  if (it != maps_.begin()) --it;
  while (it != maps_.end() && it->second.start < m.end) {
    Mapping old = it->second;
    if (old.end <= m.start) {
      ++it;
      continue;
    }
    it = maps_.erase(it);
    if (old.start < m.start) {
      Mapping left = old;
      left.end = m.start;
      maps_.emplace(left.start, left);
    }
    if (old.end > m.end) {
      Mapping right = old;
      right.pgoff += m.end - old.start;
      right.start = m.end;
      maps_.emplace(right.start, right);
    }
  }
  maps_.emplace(m.start, m);
}

const Mapping* AddressSpace::find(uint64_t addr) const {
  auto it = maps_.upper_bound(addr);
  if (it == maps_.begin()) return nullptr;
  --it;
  return addr < it->second.end ? &it->second : nullptr;
}

const Mapping* AddressSpace::findFileOffset(model::ModuleId module, uint64_t offset) const {
  for (const auto& [start, m] : maps_) {
    if (m.module == module && offset >= m.pgoff && offset - m.pgoff < m.end - m.start) return &m;
  }
  return nullptr;
}

}  // namespace strobe::record
