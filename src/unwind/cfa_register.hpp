// cfaAt(): the register the canonical frame address (CFA) is computed
// from at one pc, read straight from .eh_frame through the
// binary search table of .eh_frame_hdr. It answers the one question the
// -g fp leaf check asks (has the function set up its frame pointer yet?)
// without libdw, so without first checking every entry of the section for
// libdw's sake (cfi_registers.hpp): for a large program (cc1plus: 2.6 MB of
// .eh_frame) that check was a twentieth of a -g perf.data report's CPU.
//
// It picks the FDE as libdw's lookup with a search table does (the same
// binary search), runs the CIE's initial instructions and the FDE's up to
// the pc, and follows only the CFA, judged as ModuleCfi judges libdw's
// rule: a register (plus an offset, or dereferenced: DW_OP_bregN [off]
// [DW_OP_deref]) or none (another expression, a signal frame, a register
// or offset out of the Rule's range). What it cannot follow is kUnknown,
// and the caller asks libdw: a table in an encoding other than the one
// linkers write (datarel sdata4), a 64-bit entry, an unknown augmentation
// or opcode.
// Thread safety: pure functions over read-only bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

namespace strobe::unwind {

struct EhFrameIndex {
  std::span<const uint8_t> eh_frame;
  uint64_t eh_frame_vaddr = 0;
  std::span<const uint8_t> table;  // (initial location, FDE) pairs, sdata4 each
  uint64_t hdr_vaddr = 0;          // what the table's values are relative to
  uint64_t count = 0;
};

// The index, when .eh_frame_hdr (`hdr`, at `hdr_vaddr`) has a search table
// in datarel sdata4 whose frame pointer is `eh_frame_vaddr`.
std::optional<EhFrameIndex> ehFrameIndex(std::span<const uint8_t> hdr, uint64_t hdr_vaddr,
                                         std::span<const uint8_t> eh_frame,
                                         uint64_t eh_frame_vaddr);

struct CfaAt {
  enum Kind : uint8_t {
    kRegister,  // computed from `reg` (libdw's rule: kCfaReg or kCfaRegDeref)
    kNone,      // not from a register (libdw's rule: kCfaNone)
    kNoFde,     // no FDE of .eh_frame covers the pc
    kUnknown,   // not read here: ask libdw
  };
  Kind kind = kUnknown;
  uint32_t reg = 0;
};

// How the CFA is computed at `pc` (an ELF address).
CfaAt cfaAt(const EhFrameIndex& index, uint64_t pc);

}  // namespace strobe::unwind
