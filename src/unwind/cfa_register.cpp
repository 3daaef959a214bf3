#include "unwind/cfa_register.hpp"

#include <dwarf.h>

#include <climits>
#include <cstdint>
#include <string_view>

#include "unwind/cfi_reader.hpp"
#include "unwind/regs.hpp"

namespace strobe::unwind {
namespace {

constexpr uint8_t kDataRelSdata4 = 0x3b;  // DW_EH_PE_datarel | DW_EH_PE_sdata4
constexpr uint8_t kPcRel = 0x10;
constexpr uint8_t kDataRel = 0x30;
constexpr size_t kMaxRememberedStates = 64;

int32_t readSdata4(const uint8_t* p) {
  int32_t v = 0;
  std::memcpy(&v, p, 4);
  return v;
}

int64_t sleb(CfiReader& r) {
  uint64_t v = 0;
  unsigned shift = 0;
  uint8_t b = 0x80;
  while (r.p < r.end && (b & 0x80) != 0) {
    b = *r.p++;
    if (shift < 64) v |= static_cast<uint64_t>(b & 0x7f) << shift;
    shift += 7;
  }
  if ((b & 0x80) != 0) return static_cast<int64_t>(r.fail());
  if (shift < 64 && (b & 0x40) != 0) v |= ~uint64_t{0} << shift;  // sign-extend
  return static_cast<int64_t>(v);
}

// A value in pointer encoding `enc` read at `r` (whose first byte is at
// `vaddr` in the file's addresses): pc-relative and absolute values only
// (what .eh_frame's FDEs use); false for others.
bool readPointer(CfiReader& r, uint8_t enc, uint64_t vaddr, uint64_t& out) {
  const int size = encodedSize(enc);
  if (size <= 0 || (enc & 0x70) > kPcRel) return false;  // leb128, datarel, textrel, ...
  uint64_t v = r.fixed(static_cast<size_t>(size));
  if (!r.ok) return false;
  if ((enc & 0x08) != 0 && size < 8) {  // signed: extend
    const uint64_t sign = uint64_t{1} << (size * 8 - 1);
    v = (v ^ sign) - sign;
  }
  out = (enc & 0x70) == kPcRel ? vaddr + v : v;
  return true;
}

struct EhCie {
  uint64_t code_align = 1;
  int64_t data_align = 1;
  bool signal = false;       // 'S': a signal trampoline's frame
  uint8_t fde_encoding = 0;  // DW_EH_PE_absptr
  bool augmented = false;
  CfiReader instructions{nullptr, nullptr, false};
};

// The CIE at `at` in .eh_frame, or false where it cannot be read.
bool readEhCie(std::span<const uint8_t> section, uint64_t at, EhCie& cie) {
  if (at > section.size() || section.size() - at < 8) return false;
  CfiReader r{section.data() + at, section.data() + section.size(), true};
  const uint64_t length = r.fixed(4);
  if (length == 0 || length == 0xffffffff || length > static_cast<uint64_t>(r.end - r.p)) {
    return false;
  }
  r.end = r.p + length;
  if (r.fixed(4) != 0) return false;  // not a CIE
  const uint64_t version = r.fixed(1);
  if (version != 1 && version != 3) return false;
  const auto* nul =
      static_cast<const uint8_t*>(std::memchr(r.p, 0, static_cast<size_t>(r.end - r.p)));
  if (nul == nullptr) return false;
  const std::string_view aug(reinterpret_cast<const char*>(r.p), static_cast<size_t>(nul - r.p));
  r.p = nul + 1;
  cie.code_align = r.uleb();
  cie.data_align = sleb(r);
  if (version == 1) {
    r.fixed(1);
  } else {
    r.uleb();  // return address register
  }
  if (!aug.empty()) {
    if (aug[0] != 'z') return false;
    cie.augmented = true;
    const uint64_t data_length = r.uleb();
    if (!r.ok || data_length > static_cast<uint64_t>(r.end - r.p)) return false;
    CfiReader data{r.p, r.p + data_length, true};
    r.p += data_length;
    for (char c : aug.substr(1)) {
      if (c == 'R') {
        cie.fde_encoding = static_cast<uint8_t>(data.fixed(1));
      } else if (c == 'P') {
        const auto enc = static_cast<uint8_t>(data.fixed(1));
        const int size = encodedSize(enc);
        if (size <= 0) return false;
        data.skip(static_cast<uint64_t>(size));
      } else if (c == 'L') {
        data.fixed(1);
      } else if (c == 'S') {
        cie.signal = true;
      } else if (c != 'B') {
        return false;
      }
    }
    if (!data.ok) return false;
  }
  if (!r.ok || cie.code_align == 0) return false;
  cie.instructions = r;
  return true;
}

// The CFA as the instructions set it: a register and an offset, or an
// expression (its bytes).
struct CfaState {
  uint64_t reg = 0;
  int64_t off = 0;
  bool defined = false;
  const uint8_t* expr = nullptr;  // DW_CFA_def_cfa_expression's block, when that set it
  uint64_t expr_size = 0;
};

// Runs `r` (a CIE's or FDE's instructions) up to `pc`: false when it meets
// what it cannot follow; `passed` when an advance went beyond the pc.
bool runCfa(CfiReader r, const EhCie& cie, uint8_t fde_encoding, uint64_t pc, uint64_t& loc,
            CfaState& cfa, CfaState* stack, size_t& depth, bool& passed) {
  auto advance = [&](uint64_t delta) {
    loc += delta * cie.code_align;
    passed = loc > pc;
  };
  while (r.ok && r.p < r.end && !passed) {
    const uint8_t op = *r.p++;
    switch (op & 0xc0) {
      case DW_CFA_advance_loc:
        advance(op & 0x3f);
        continue;
      case DW_CFA_offset:
        r.uleb();
        continue;
      case DW_CFA_restore:
        continue;
      default:
        break;
    }
    switch (op) {
      case DW_CFA_nop:
      case DW_CFA_GNU_window_save:
        break;
      case DW_CFA_set_loc: {
        uint64_t at = 0;
        if (!readPointer(r, fde_encoding, 0, at) || (fde_encoding & 0x70) != 0) return false;
        loc = at;
        passed = loc > pc;
        break;
      }
      case DW_CFA_advance_loc1:
        advance(r.fixed(1));
        break;
      case DW_CFA_advance_loc2:
        advance(r.fixed(2));
        break;
      case DW_CFA_advance_loc4:
        advance(r.fixed(4));
        break;
      case DW_CFA_remember_state:
        if (depth == kMaxRememberedStates) return false;
        stack[depth++] = cfa;
        break;
      case DW_CFA_restore_state:
        if (depth == 0) return false;
        cfa = stack[--depth];
        break;
      case DW_CFA_def_cfa:
        cfa = CfaState{r.uleb(), 0, true};
        cfa.off = static_cast<int64_t>(r.uleb());
        break;
      case DW_CFA_def_cfa_sf:
        cfa = CfaState{r.uleb(), 0, true};
        cfa.off = sleb(r) * cie.data_align;
        break;
      // These change a register rule only: libdw refuses them after an
      // expression or before any rule (left to it).
      case DW_CFA_def_cfa_register:
        if (!cfa.defined || cfa.expr != nullptr) return false;
        cfa.reg = r.uleb();
        break;
      case DW_CFA_def_cfa_offset:
        if (!cfa.defined || cfa.expr != nullptr) return false;
        cfa.off = static_cast<int64_t>(r.uleb());
        break;
      case DW_CFA_def_cfa_offset_sf:
        if (!cfa.defined || cfa.expr != nullptr) return false;
        cfa.off = sleb(r) * cie.data_align;
        break;
      case DW_CFA_GNU_args_size:
      case DW_CFA_restore_extended:
      case DW_CFA_undefined:
      case DW_CFA_same_value:
        r.uleb();
        break;
      case DW_CFA_def_cfa_expression:
        cfa.expr_size = r.uleb();
        cfa.expr = r.p;
        cfa.defined = true;
        r.skip(cfa.expr_size);
        break;
      case DW_CFA_offset_extended:
      case DW_CFA_offset_extended_sf:
      case DW_CFA_val_offset:
      case DW_CFA_val_offset_sf:
      case DW_CFA_register:
      case DW_CFA_GNU_negative_offset_extended:
        r.uleb();
        r.uleb();
        break;
      case DW_CFA_expression:
      case DW_CFA_val_expression:
        r.uleb();
        r.skip(r.uleb());
        break;
      default:
        return false;
    }
  }
  return r.ok;
}

// The CFA rule as ModuleCfi reads libdw's (cfaRule in module_cfi.cpp):
// DW_OP_bregN or DW_OP_bregx with an offset, then optionally DW_OP_deref,
// the register below kMaxDwarfRegs and the offset within 32 bits; libdw
// turns DW_CFA_def_cfa's register and offset into DW_OP_bregx/bregN.
CfaAt judge(const EhCie& cie, const CfaState& cfa) {
  const CfaAt none{CfaAt::kNone};
  if (cie.signal || !cfa.defined) return none;
  uint64_t reg = cfa.reg;
  int64_t off = cfa.off;
  if (cfa.expr != nullptr) {
    CfiReader e{cfa.expr, cfa.expr + cfa.expr_size, true};
    const uint8_t op = static_cast<uint8_t>(e.fixed(1));
    if (op >= DW_OP_breg0 && op <= DW_OP_breg31) {
      reg = op - DW_OP_breg0;
    } else if (op == DW_OP_bregx) {
      reg = e.uleb();
    } else {
      return none;
    }
    off = sleb(e);
    if (e.ok && e.p < e.end && *e.p == DW_OP_deref) ++e.p;
    if (!e.ok || e.p != e.end) return none;
  }
  if (reg >= static_cast<uint64_t>(kMaxDwarfRegs) || off < INT32_MIN || off > INT32_MAX) {
    return none;
  }
  return CfaAt{CfaAt::kRegister, static_cast<uint32_t>(reg)};
}

}  // namespace

std::optional<EhFrameIndex> ehFrameIndex(std::span<const uint8_t> hdr, uint64_t hdr_vaddr,
                                         std::span<const uint8_t> eh_frame,
                                         uint64_t eh_frame_vaddr) {
  // version, eh_frame_ptr encoding, fde_count encoding, table encoding
  if (hdr.size() < 12 || hdr[0] != 1 || hdr[3] != kDataRelSdata4) return std::nullopt;
  CfiReader r{hdr.data() + 4, hdr.data() + hdr.size(), true};
  uint64_t frame = 0;
  uint64_t count = 0;
  if (!readPointer(r, hdr[1], hdr_vaddr + 4, frame) || frame != eh_frame_vaddr) return std::nullopt;
  const uint64_t count_at = hdr_vaddr + static_cast<uint64_t>(r.p - hdr.data());
  if ((hdr[2] & 0x70) == kDataRel || !readPointer(r, hdr[2], count_at, count)) return std::nullopt;
  const auto left = static_cast<uint64_t>(r.end - r.p);
  if (count == 0 || count > left / 8) return std::nullopt;
  return EhFrameIndex{eh_frame, eh_frame_vaddr,
                      std::span<const uint8_t>(r.p, static_cast<size_t>(count * 8)), hdr_vaddr,
                      count};
}

CfaAt cfaAt(const EhFrameIndex& index, uint64_t pc) {
  const CfaAt unknown{CfaAt::kUnknown};
  // The FDE, as libdw's binary_search_fde picks it: the last entry whose
  // initial location is at or below the pc, unless the next one starts at
  // or below it too.
  uint64_t fde_vaddr = 0;
  bool found = false;
  for (uint64_t l = 0, u = index.count; l < u && !found;) {
    const uint64_t idx = (l + u) / 2;
    const uint8_t* e = index.table.data() + idx * 8;
    const uint64_t start = index.hdr_vaddr + static_cast<uint64_t>(int64_t{readSdata4(e)});
    if (pc < start) {
      u = idx;
      continue;
    }
    l = idx + 1;
    if (l < index.count) {
      const uint64_t end = index.hdr_vaddr + static_cast<uint64_t>(int64_t{readSdata4(e + 8)});
      if (pc >= end) continue;
    }
    fde_vaddr = index.hdr_vaddr + static_cast<uint64_t>(int64_t{readSdata4(e + 4)});
    found = true;
  }
  if (!found) return CfaAt{CfaAt::kNoFde};
  if (fde_vaddr < index.eh_frame_vaddr) return unknown;
  const uint64_t at = fde_vaddr - index.eh_frame_vaddr;
  const std::span<const uint8_t> section = index.eh_frame;
  if (at > section.size() || section.size() - at < 8) return unknown;

  CfiReader r{section.data() + at, section.data() + section.size(), true};
  const uint64_t length = r.fixed(4);
  if (length == 0 || length == 0xffffffff || length > static_cast<uint64_t>(r.end - r.p)) {
    return unknown;
  }
  r.end = r.p + length;
  const uint64_t id_at = at + 4;
  const uint64_t id = r.fixed(4);
  if (id == 0 || id > id_at) return unknown;  // a CIE, or a pointer before the section
  EhCie cie;
  if (!readEhCie(section, id_at - id, cie)) return unknown;
  uint64_t begin = 0;
  uint64_t range = 0;
  const uint64_t begin_vaddr = index.eh_frame_vaddr + static_cast<uint64_t>(r.p - section.data());
  if (!readPointer(r, cie.fde_encoding, begin_vaddr, begin) ||
      !readPointer(r, cie.fde_encoding & 0x0f, 0, range)) {
    return unknown;
  }
  if (pc < begin || pc - begin >= range) return CfaAt{CfaAt::kNoFde};  // libdw: no match
  if (cie.augmented) r.skip(r.uleb());
  if (!r.ok) return unknown;

  CfaState cfa;
  CfaState stack[kMaxRememberedStates];
  size_t depth = 0;
  bool passed = false;
  uint64_t loc = begin;
  if (!runCfa(cie.instructions, cie, cie.fde_encoding, pc, loc, cfa, stack, depth, passed)) {
    return unknown;
  }
  loc = begin;
  passed = false;
  if (!runCfa(r, cie, cie.fde_encoding, pc, loc, cfa, stack, depth, passed)) return unknown;
  return judge(cie, cfa);
}

}  // namespace strobe::unwind
