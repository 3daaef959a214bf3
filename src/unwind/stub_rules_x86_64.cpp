#include "unwind/stub_rules.hpp"

#include <cstring>

#include "unwind/regs.hpp"

namespace strobe::unwind {
namespace {

// One decoded instruction of a stub.
struct Insn {
  enum Kind {
    kOther,
    kPushFp,
    kPopFp,
    kMovSpFp,
    kAdjustSp,
    kCall,
    kJump,
    kNop,
    kRet
  } kind = kOther;
  size_t length = 0;
  int32_t sp_delta = 0;  // kAdjustSp: bytes added to %rsp
};

Insn decode(const uint8_t* p, size_t n) {
  auto has = [&](size_t k) { return n >= k; };
  if (has(4) && p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa)
    return {Insn::kNop, 4};
  if (has(1) && p[0] == 0x90) return {Insn::kNop, 1};
  if (has(1) && p[0] == 0x55) return {Insn::kPushFp, 1};
  if (has(1) && p[0] == 0x5d) return {Insn::kPopFp, 1};
  if (has(1) && p[0] == 0xc3) return {Insn::kRet, 1};
  if (has(3) && p[0] == 0x48 && p[1] == 0x89 && p[2] == 0xe5) return {Insn::kMovSpFp, 3};
  // sub/add $imm8, %rsp: 48 83 ec/c4 ib; $imm32: 48 81 ec/c4 id.
  if (has(4) && p[0] == 0x48 && p[1] == 0x83 && (p[2] == 0xec || p[2] == 0xc4)) {
    const int32_t imm = static_cast<int8_t>(p[3]);
    return {Insn::kAdjustSp, 4, p[2] == 0xec ? -imm : imm};
  }
  if (has(7) && p[0] == 0x48 && p[1] == 0x81 && (p[2] == 0xec || p[2] == 0xc4)) {
    int32_t imm = 0;
    std::memcpy(&imm, p + 3, 4);
    return {Insn::kAdjustSp, 7, p[2] == 0xec ? -imm : imm};
  }
  // call/jmp *%reg: ff /2 or /4 with mod 11 (and REX.B 41 for r8-r15).
  size_t rex = has(1) && p[0] == 0x41 ? 1 : 0;
  if (has(rex + 2) && p[rex] == 0xff && (p[rex + 1] & 0xc0) == 0xc0) {
    const unsigned op = (p[rex + 1] >> 3) & 7;
    if (op == 2) return {Insn::kCall, rex + 2};
    if (op == 4) return {Insn::kJump, rex + 2};
  }
  return {};
}

}  // namespace

Rule stubRule(const uint8_t* code, size_t size, size_t offset) {
  const ArchRegs& a = archRegs();
  Rule r;
  if (offset >= size) return r;
  // At the stub's entry: CFA = %rsp + 8, the return address at CFA - 8.
  bool cfa_on_fp = false;
  int32_t cfa_off = 8;
  bool fp_saved = false;
  int32_t fp_slot = 0;  // from the CFA
  size_t at = 0;
  while (at < offset) {
    const Insn i = decode(code + at, size - at);
    if (i.kind == Insn::kOther || i.kind == Insn::kRet || i.kind == Insn::kJump ||
        at + i.length > offset) {
      return Rule{};  // unknown code, or the pc is not at an instruction's start
    }
    switch (i.kind) {
      case Insn::kPushFp:
        if (!cfa_on_fp) cfa_off += 8;
        fp_saved = true;
        fp_slot = -cfa_off;
        break;
      case Insn::kPopFp:
        // With the CFA on %rbp, %rsp pointed at the saved %rbp: after the
        // pop it is 8 above that slot.
        cfa_off = cfa_on_fp ? -fp_slot - 8 : cfa_off - 8;
        cfa_on_fp = false;
        fp_saved = false;
        break;
      case Insn::kMovSpFp:
        if (!fp_saved) return Rule{};
        cfa_on_fp = true;  // %rbp = %rsp: CFA = %rbp + cfa_off
        break;
      case Insn::kAdjustSp:
        if (!cfa_on_fp) cfa_off -= i.sp_delta;
        break;
      default:
        break;
    }
    at += i.length;
  }
  if (cfa_off < 8) return Rule{};
  r.cfa_kind = Rule::kCfaReg;
  r.cfa_reg = static_cast<uint8_t>(cfa_on_fp ? a.fp : a.sp);
  r.cfa_off = cfa_off;
  r.ra = Rule::kAtCfa;
  r.ra_off = -8;
  r.fp = fp_saved ? Rule::kAtCfa : Rule::kSame;
  r.fp_off = fp_saved ? fp_slot : 0;
  return r;
}

size_t stubReturnOffset(const uint8_t* code, size_t size) {
  size_t at = 0;
  while (at < size) {
    const Insn i = decode(code + at, size - at);
    if (i.kind == Insn::kOther) return 0;
    at += i.length;
    if (i.kind == Insn::kCall) return at;
  }
  return 0;
}

}  // namespace strobe::unwind
