// Registers for unwinding: which user registers perf samples
// (attr.sample_regs_user) and how they map to DWARF register numbers. The
// numbering is the architecture's; the only implementation today is
// regs_x86_64.cpp (x86-64 System V: DWARF 0..16, 6 = rbp, 7 = rsp, 16 = the
// return address column).
// Owns: nothing. Thread safety: pure functions over caller-owned values.
// Async-signal safety: all functions are (no allocation, no locks).
#pragma once

#include <cstddef>
#include <cstdint>

namespace strobe::unwind {

// Enough DWARF register numbers for the general-purpose registers of every
// supported architecture, plus the return-address column.
inline constexpr int kMaxDwarfRegs = 33;

// A register file indexed by DWARF register number. `valid` has bit n set
// when r[n] is known.
struct Registers {
  uint64_t r[kMaxDwarfRegs] = {};
  uint64_t valid = 0;

  [[nodiscard]] bool has(int n) const { return n >= 0 && n < kMaxDwarfRegs && (valid >> n) & 1; }
  void set(int n, uint64_t v) {
    r[n] = v;
    valid |= uint64_t{1} << n;
  }
  void clear(int n) { valid &= ~(uint64_t{1} << n); }
};

// The architecture's register roles, in DWARF numbers.
struct ArchRegs {
  int ip;                 // the program counter (the return-address column)
  int sp;                 // the stack pointer
  int fp;                 // the frame pointer
  uint64_t callee_saved;  // bit n: DWARF register n survives calls
  uint64_t perf_mask;     // attr.sample_regs_user strobe asks for
};

// This build's architecture.
const ArchRegs& archRegs();

// Fills `out` from the values of a PERF_SAMPLE_REGS_USER block sampled with
// `mask` (values in increasing bit order, `n` of them). False when the
// block lacks the ip or the sp (the sample then cannot be unwound).
bool registersFromPerf(uint64_t mask, const uint64_t* values, size_t n, Registers& out);

}  // namespace strobe::unwind
