// The code a recording keeps of its sampled functions (Profile::code(), the
// FunctionCode of profile.hpp), and how reports find it.
//
// Which functions: the recorder keeps one FunctionCode per function that
// holds a sample's leaf frame (self samples), for each part of it with its
// own symbol (a function split into hot and .cold parts has two). Bytes are
// kept up to kMaxFunctionCodeBytes per function and kMaxCodeBytes per
// recording, hottest functions first; beyond those, and for kernel code, the
// range alone is kept (it still names addresses function+offset).
//
// codeChecksum() lets a reader tell bytes changed since they were recorded
// (corrupt) from bytes cut short (truncated: fewer than `size`).
// Thread safety: pure functions and an immutable index over a const Profile.
// No I/O.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "model/profile.hpp"

namespace strobe::model {

inline constexpr uint64_t kMaxFunctionCodeBytes = uint64_t{256} << 10;  // 256 KiB
inline constexpr uint64_t kMaxCodeBytes = uint64_t{32} << 20;           // 32 MiB

// FNV-1a (64 bits) of the bytes; never 0 for a non-empty input's result as
// stored (0 means "no bytes kept"): a hash of 0 is stored as 1.
uint64_t codeChecksum(std::span<const uint8_t> bytes);

// Finds the FunctionCode holding a (module, offset) location, by binary
// search over the ranges sorted by module and offset. Where ranges nest, the
// one starting nearest before the offset wins.
class CodeIndex {
 public:
  explicit CodeIndex(const Profile& p);
  // The code whose [offset, offset + size) holds `offset` in `module`, or nullptr.
  [[nodiscard]] const FunctionCode* find(ModuleId module, uint64_t offset) const;

 private:
  const Profile* p_;
  std::vector<uint32_t> order_;  // indexes into p.code(), by (module, offset)
};

// The weight and count of samples whose leaf frame is each location, by
// LocationId (self time per location).
struct LeafWeight {
  uint64_t weight = 0;
  uint64_t samples = 0;
};
std::vector<LeafWeight> leafWeights(const Profile& p);

}  // namespace strobe::model
