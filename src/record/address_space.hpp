// AddressSpace: the file mappings of one process over time, as reported by
// MMAP2 records (and, for attach, /proc/PID/maps). A new mapping replaces
// whatever it overlaps, as mmap(2) does. Lookups give the module and the
// file offset of a process address (AVMA − start + pgoff).
// Thread safety: none (owned by the converter's thread).
#pragma once

#include <cstdint>
#include <map>

#include "model/profile.hpp"

namespace strobe::record {

struct Mapping {
  uint64_t start = 0;  // AVMA, inclusive
  uint64_t end = 0;    // AVMA, exclusive
  uint64_t pgoff = 0;  // file offset of `start`
  model::ModuleId module = model::kNone;
};

class AddressSpace {
 public:
  void map(const Mapping& m);
  void clear() { maps_.clear(); }
  // The mapping containing `addr`, or nullptr.
  [[nodiscard]] const Mapping* find(uint64_t addr) const;
  // A mapping of `module` that holds file offset `offset`, or nullptr
  // (a scan: for the rare frames named by file offset).
  [[nodiscard]] const Mapping* findFileOffset(model::ModuleId module, uint64_t offset) const;
  [[nodiscard]] size_t size() const { return maps_.size(); }

 private:
  std::map<uint64_t, Mapping> maps_;  // keyed by start; never overlapping
};

}  // namespace strobe::record
