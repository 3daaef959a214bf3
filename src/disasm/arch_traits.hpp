// Internal to src/disasm: what differs between architectures, one
// implementation per file (disassembler_x86_64.cpp, disassembler_aarch64.cpp).
// Thread safety: pure functions over a decoded instruction.
#pragma once

#include <capstone/capstone.h>

#include <cstdint>
#include <optional>

#include "disasm/capstone_api.hpp"
#include "disasm/disassembler.hpp"

namespace strobe::disasm {

struct ArchTraits {
  cs_arch arch;
  cs_mode mode;
  uint32_t invalid_step;  // bytes to skip over what does not decode
  // Extra options once the handle is open (syntax); may be nullptr.
  void (*configure)(const CapstoneApi& api, csh handle);
  // The kind of a decoded instruction (needs CS_OPT_DETAIL).
  Kind (*kind)(const cs_insn& insn);
  // A direct jump, branch or call's destination, if any.
  std::optional<uint64_t> (*target)(const cs_insn& insn);
};

const ArchTraits& x86_64Traits();
const ArchTraits& aarch64Traits();

}  // namespace strobe::disasm
