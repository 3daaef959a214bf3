// x86-64: perf's register numbers (asm/perf_regs.h) to DWARF's (System V
// psABI, figure 3.36).
#include <asm/perf_regs.h>

#include "unwind/regs.hpp"

namespace strobe::unwind {
namespace {

constexpr int kDwarfRbx = 3, kDwarfRbp = 6, kDwarfRsp = 7, kDwarfRip = 16;

struct PerfToDwarf {
  int perf;
  int dwarf;
};

// The general-purpose registers strobe samples.
constexpr PerfToDwarf kMap[] = {
    {PERF_REG_X86_AX, 0},   {PERF_REG_X86_DX, 1},   {PERF_REG_X86_CX, 2},   {PERF_REG_X86_BX, 3},
    {PERF_REG_X86_SI, 4},   {PERF_REG_X86_DI, 5},   {PERF_REG_X86_BP, 6},   {PERF_REG_X86_SP, 7},
    {PERF_REG_X86_R8, 8},   {PERF_REG_X86_R9, 9},   {PERF_REG_X86_R10, 10}, {PERF_REG_X86_R11, 11},
    {PERF_REG_X86_R12, 12}, {PERF_REG_X86_R13, 13}, {PERF_REG_X86_R14, 14}, {PERF_REG_X86_R15, 15},
    {PERF_REG_X86_IP, 16},
};

constexpr uint64_t perfMask() {
  uint64_t m = 0;
  for (const PerfToDwarf& p : kMap) m |= uint64_t{1} << p.perf;
  return m;
}

constexpr uint64_t bit(int n) {
  return uint64_t{1} << n;
}

constexpr ArchRegs kX86_64 = {
    kDwarfRip, kDwarfRsp, kDwarfRbp,
    bit(kDwarfRbx) | bit(kDwarfRbp) | bit(12) | bit(13) | bit(14) | bit(15), perfMask()};

}  // namespace

const ArchRegs& archRegs() {
  return kX86_64;
}

bool registersFromPerf(uint64_t mask, const uint64_t* values, size_t n, Registers& out) {
  out = Registers{};
  // The k-th value belongs to the k-th set bit of the mask.
  int dwarf_of_perf[64];
  for (int& d : dwarf_of_perf) d = -1;
  for (const PerfToDwarf& p : kMap) dwarf_of_perf[p.perf] = p.dwarf;
  size_t k = 0;
  for (int bitno = 0; bitno < 64 && k < n; ++bitno) {
    if (((mask >> bitno) & 1) == 0) continue;
    if (dwarf_of_perf[bitno] >= 0) out.set(dwarf_of_perf[bitno], values[k]);
    ++k;
  }
  return out.has(kDwarfRip) && out.has(kDwarfRsp);
}

}  // namespace strobe::unwind
