// Build-id frames: user frames a capture engine names by their file's GNU
// build-id and file offset instead of an address (the BPF engine's
// bpf_get_stack with BPF_F_USER_BUILD_ID), so that a frame is named even
// where strobe never learned the process's mappings (it exited before
// /proc/PID/maps was read, its MMAP2 records were lost).
//
// BuildIdFrames turns such a frame into what the converter's stack walk
// takes: the frame's address in the process when a known mapping of a file
// with that build-id holds the offset (so the frame is the same location a
// plain address gives), and otherwise a pseudo address standing for (the
// module of that build-id, offset), outside every user and kernel address
// and below perf's context markers, which location() turns back. The
// module's path is the one a mapping of that build-id had anywhere in the
// session ("" when none did: the module is then known by its build-id).
// Build-ids are matched as the kernel gives them: 20 bytes, zero-padded.
// Thread safety: none (the converter's).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/profile.hpp"
#include "record/address_space.hpp"

namespace strobe::record {

struct BuildIdFrame {
  // The file's build-id, zero-padded to 20 bytes; null: the kernel could
  // not tell the file, and `offset` is the frame's address.
  const uint8_t* build_id = nullptr;
  uint64_t offset = 0;  // in the file (the address when build_id is null)
};

class BuildIdFrames {
 public:
  using Key = std::array<uint8_t, 20>;

  // A mapping of `module` (path, lowercase hex build-id) was seen.
  void noteModule(const model::Profile& p, model::ModuleId module);
  // The address (or pseudo address) of `f` in the process of `as`; a
  // return address (not the leaf) is stepped back into its call.
  uint64_t resolve(model::Profile& p, const AddressSpace& as, const BuildIdFrame& f, bool leaf);

  static constexpr uint64_t kPseudoBase = 0xffe0'0000'0000'0000ULL;
  static constexpr uint64_t kPseudoEnd = 0xfff0'0000'0000'0000ULL;
  // Whether `a` is a pseudo address this made: a broken frame chain can put
  // any value in a stack, this range's included.
  [[nodiscard]] bool isPseudo(uint64_t a) const {
    return a >= kPseudoBase && a < kPseudoEnd && a - kPseudoBase < pseudo_.size();
  }
  // The module and file offset a pseudo address stands for.
  [[nodiscard]] std::pair<model::ModuleId, uint64_t> location(uint64_t pseudo) const {
    return pseudo_[pseudo - kPseudoBase];
  }

  // Lowercase hex of a 20-byte build-id as MMAP2 records and ELF notes
  // give it: 16 bytes when the last 4 are zero (a 128-bit build-id).
  static std::string hex(const uint8_t* build_id);

 private:
  struct KeyHash {
    size_t operator()(const Key& k) const;
  };
  std::unordered_map<Key, model::ModuleId, KeyHash> module_of_;
  std::unordered_map<uint64_t, uint64_t> pseudo_of_;  // (module << 44 | offset) -> pseudo address
  std::vector<std::pair<model::ModuleId, uint64_t>> pseudo_;
};

}  // namespace strobe::record
