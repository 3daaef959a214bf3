#include "unwind/cfi_registers.hpp"

#include <dwarf.h>

#include <cstring>
#include <span>
#include <string_view>
#include <unordered_map>

#include "unwind/cfi_reader.hpp"

namespace strobe::unwind {
namespace {

bool skipEncoded(CfiReader& r, uint8_t enc) {
  const int size = encodedSize(enc);
  if (size < 0) return false;
  if (size == 0) {
    r.uleb();
  } else {
    r.skip(static_cast<uint64_t>(size));
  }
  return r.ok;
}

// Each register the instructions name must be below `max`. False when one
// is not; true when they are, or when the instructions cannot be read on
// (libdw then refuses them itself).
bool instructionsBounded(CfiReader r, int address_size, uint64_t max) {
  auto reg = [&](uint64_t n) { return n < max; };
  while (r.ok && r.p < r.end) {
    const uint8_t op = *r.p++;
    switch (op & 0xc0) {
      case DW_CFA_advance_loc:
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
      case DW_CFA_remember_state:
      case DW_CFA_restore_state:
      case DW_CFA_GNU_window_save:  // also DW_CFA_AARCH64_negate_ra_state
      case 0x2c:                    // DW_CFA_AARCH64_negate_ra_state_with_pc
        break;
      case DW_CFA_set_loc:  // an address in the FDE's encoding
        if (address_size < 0) return true;
        if (address_size == 0) {
          r.uleb();
        } else {
          r.skip(static_cast<uint64_t>(address_size));
        }
        break;
      case DW_CFA_advance_loc1:
        r.skip(1);
        break;
      case DW_CFA_advance_loc2:
        r.skip(2);
        break;
      case DW_CFA_advance_loc4:
        r.skip(4);
        break;
      case DW_CFA_MIPS_advance_loc8:
        r.skip(8);
        break;
      case DW_CFA_def_cfa_offset:
      case DW_CFA_def_cfa_offset_sf:
      case DW_CFA_GNU_args_size:
        r.uleb();
        break;
      case DW_CFA_def_cfa_expression:
        r.skip(r.uleb());
        break;
      case DW_CFA_restore_extended:
      case DW_CFA_undefined:
      case DW_CFA_same_value:
      case DW_CFA_def_cfa_register:
        if (!reg(r.uleb())) return false;
        break;
      case DW_CFA_offset_extended:
      case DW_CFA_offset_extended_sf:
      case DW_CFA_def_cfa:
      case DW_CFA_def_cfa_sf:
      case DW_CFA_val_offset:
      case DW_CFA_val_offset_sf:
      case DW_CFA_GNU_negative_offset_extended:
        if (!reg(r.uleb())) return false;
        r.uleb();
        break;
      case DW_CFA_register:
        if (!reg(r.uleb()) || !reg(r.uleb())) return false;
        break;
      case DW_CFA_expression:
      case DW_CFA_val_expression:
        if (!reg(r.uleb())) return false;
        r.skip(r.uleb());
        break;
      default:
        // An opcode whose operands are unknown here (and to libdw, which
        // refuses the entry): every one libdw runs is above.
        return true;
    }
  }
  return true;
}

struct Cie {
  uint8_t fde_encoding = 0;  // DW_EH_PE_absptr
  int address_size = 8;      // .debug_frame: of FDE addresses
  bool augmented = false;    // 'z': FDEs carry an augmentation length
  bool readable = false;
};

// Reads the CIE whose content (past its id) is `r`; checks its initial
// instructions.
bool readCie(CfiReader r, bool eh_frame, uint64_t max, Cie& cie) {
  const uint64_t version = r.fixed(1);
  const char* aug = reinterpret_cast<const char*>(r.p);
  const void* nul = std::memchr(r.p, 0, static_cast<size_t>(r.end - r.p));
  if (nul == nullptr) return true;
  const std::string_view augmentation(aug,
                                      static_cast<size_t>(static_cast<const uint8_t*>(nul) - r.p));
  r.p = static_cast<const uint8_t*>(nul) + 1;
  int address_size = 8;
  if (!eh_frame && version >= 4) {
    address_size = static_cast<int>(r.fixed(1));
    r.fixed(1);  // segment selector size
  }
  r.uleb();  // code alignment
  r.uleb();  // data alignment (sleb: only stepped over)
  if (version == 1) {
    r.fixed(1);  // return address register
  } else {
    r.uleb();
  }
  if (!augmentation.empty() && augmentation[0] == 'z') {
    cie.augmented = true;
    const uint64_t length = r.uleb();
    CfiReader data{r.p, r.p, true};
    r.skip(length);
    if (!r.ok) return true;
    data.end = r.p;
    for (char c : augmentation.substr(1)) {
      if (c == 'R') {
        cie.fde_encoding = static_cast<uint8_t>(data.fixed(1));
      } else if (c == 'P') {
        if (!skipEncoded(data, static_cast<uint8_t>(data.fixed(1)))) return true;
      } else if (c == 'L') {
        data.fixed(1);
      } else if (c != 'S' && c != 'B') {
        return true;  // an augmentation whose data is unknown
      }
    }
    if (!data.ok) return true;
  } else if (!augmentation.empty() && augmentation != "eh") {
    return true;
  }
  if (!r.ok) return true;
  cie.address_size = address_size;
  const int pointer =
      eh_frame ? encodedSize(cie.fde_encoding) : (address_size > 0 ? address_size : -1);
  cie.readable = pointer >= 0;  // (s|u)leb128 addresses too
  return instructionsBounded(r, pointer, max);
}

// An entry's header at `at`: its content (past the length) and the
// size of its offsets; false when it does not fit the section.
bool entryAt(std::span<const uint8_t> section, uint64_t at, CfiReader& content, int& offset_size) {
  if (at >= section.size()) return false;
  CfiReader all{section.data() + at, section.data() + section.size(), true};
  uint64_t length = all.fixed(4);
  offset_size = 4;
  if (length == 0xffffffff) {
    length = all.fixed(8);
    offset_size = 8;
  }
  if (!all.ok || length == 0) return false;
  const uint8_t* start = all.p;
  all.skip(length);
  if (!all.ok) return false;
  content = CfiReader{start, all.p, true};
  return true;
}

bool isCieId(uint64_t id, bool eh_frame, int offset_size) {
  return eh_frame ? id == 0 : id == (offset_size == 4 ? 0xffffffffULL : UINT64_MAX);
}

}  // namespace

bool cfiRegistersBounded(std::span<const uint8_t> section, bool eh_frame, uint64_t max_register) {
  std::unordered_map<uint64_t, Cie> cies;  // by offset in the section
  // The CIE an FDE points at. libdw reads it wherever the pointer lands,
  // also inside another entry, so a CIE not met in the walk is read there.
  // Null when there is none to read (libdw refuses the FDE too); `bounded`
  // false when that CIE names a register out of bounds.
  auto cieAt = [&](uint64_t at, bool& bounded) -> const Cie* {
    if (auto it = cies.find(at); it != cies.end()) return &it->second;
    CfiReader r{nullptr, nullptr, false};
    int offset_size = 4;
    if (!entryAt(section, at, r, offset_size)) return nullptr;
    if (!isCieId(r.fixed(static_cast<size_t>(offset_size)), eh_frame, offset_size) || !r.ok) {
      return nullptr;
    }
    Cie cie;
    bounded = readCie(r, eh_frame, max_register, cie);
    return &(cies[at] = cie);
  };
  uint64_t at = 0;
  while (at < section.size()) {
    if (section.size() - at < 4) break;
    uint32_t length = 0;
    std::memcpy(&length, section.data() + at, 4);
    if (length == 0) {
      if (eh_frame) break;  // the terminator
      at += 4;              // .debug_frame: padding
      continue;
    }
    CfiReader r{nullptr, nullptr, false};
    int offset_size = 4;
    if (!entryAt(section, at, r, offset_size)) break;
    const uint64_t next = static_cast<uint64_t>(r.end - section.data());
    const uint64_t id_at = static_cast<uint64_t>(r.p - section.data());
    const uint64_t id = r.fixed(static_cast<size_t>(offset_size));
    const uint64_t entry_at = at;
    at = next;
    if (isCieId(id, eh_frame, offset_size)) {
      bool bounded = true;
      cieAt(entry_at, bounded);
      if (!bounded) return false;
      continue;
    }
    // An FDE: its CIE, its address range, its augmentation data, its
    // instructions.
    if (eh_frame && id > id_at) continue;
    bool bounded = true;
    const Cie* found = cieAt(eh_frame ? id_at - id : id, bounded);
    if (!bounded) return false;
    if (found == nullptr || !found->readable) continue;
    const Cie& cie = *found;
    if (eh_frame) {
      // The address, then the range in the same format (no application bits).
      if (!skipEncoded(r, cie.fde_encoding) ||
          !skipEncoded(r, static_cast<uint8_t>(cie.fde_encoding & 0x0f))) {
        continue;
      }
    } else {
      r.skip(2 * static_cast<uint64_t>(cie.address_size));
    }
    if (cie.augmented) r.skip(r.uleb());
    if (!r.ok) continue;
    const int pointer = eh_frame ? encodedSize(cie.fde_encoding) : cie.address_size;
    if (!instructionsBounded(r, pointer, max_register)) return false;
  }
  return true;
}

}  // namespace strobe::unwind
