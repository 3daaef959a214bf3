// cfiRegistersBounded(): whether every register a call frame information
// section (.eh_frame or .debug_frame) names is below a bound, checked
// before libdw runs its instructions. libdw grows each frame's register
// table to the largest register number an instruction names, and clears
// it: one DW_CFA_restore_extended of register 2^28 in a hostile file cost
// 4 GB (found by fuzz/cfi_fuzz.cpp). Real code names a few dozen
// registers (x86-64's DWARF numbers end at 130).
//
// Reads the section's CIEs and FDEs and their instructions; entries it
// cannot read to their end (an unknown augmentation, a vendor opcode,
// truncated data) are left to libdw, whose own checks refuse those.
// `eh_frame` selects .eh_frame's layout (CIE id 0, pointer encodings)
// over .debug_frame's.
// Thread safety: a pure function over read-only bytes.
#pragma once

#include <cstdint>
#include <span>

namespace strobe::unwind {

inline constexpr uint64_t kMaxCfiRegister = 1024;

bool cfiRegistersBounded(std::span<const uint8_t> section, bool eh_frame,
                         uint64_t max_register = kMaxCfiRegister);

}  // namespace strobe::unwind
