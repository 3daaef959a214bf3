#include "unwind/module_cfi.hpp"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <limits>
#include <mutex>
#include <span>
#include <string_view>

#include "unwind/cfi_registers.hpp"
#include "unwind/regs.hpp"

namespace strobe::unwind {
namespace {

constexpr size_t kFramePointerProbes = 256;
constexpr uint64_t kMinProbedFunctionSize = 16;

bool fitsInt32(int64_t v) {
  return v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
}

// A register's rule from libdw's location description (libdw.h,
// dwarf_frame_register): nothing = undefined or same value; otherwise
// DW_OP_call_frame_cfa [DW_OP_plus_uconst N] [DW_OP_stack_value].
void registerRule(Dwarf_Frame* frame, int regno, uint8_t& kind, int32_t& off) {
  Dwarf_Op mem[3];
  Dwarf_Op* ops = nullptr;
  size_t nops = 0;
  kind = Rule::kUnsupported;
  off = 0;
  if (::dwarf_frame_register(frame, regno, mem, &ops, &nops) != 0) return;
  if (nops == 0) {
    kind = ops == nullptr ? Rule::kSame : Rule::kUndefined;
    return;
  }
  if (ops[0].atom != DW_OP_call_frame_cfa) return;
  size_t i = 1;
  int64_t value = 0;
  if (i < nops && ops[i].atom == DW_OP_plus_uconst) {
    value = static_cast<int64_t>(ops[i].number);  // negative offsets wrap around
    ++i;
  }
  if (!fitsInt32(value)) return;
  if (i == nops) {
    kind = Rule::kAtCfa;
  } else if (i + 1 == nops && ops[i].atom == DW_OP_stack_value) {
    kind = Rule::kValCfa;
  } else {
    return;
  }
  off = static_cast<int32_t>(value);
}

// The CFA rule: DW_OP_bregN / DW_OP_bregx (what libdw synthesizes for
// "register + offset"), optionally followed by DW_OP_deref.
void cfaRule(Dwarf_Frame* frame, Rule& rule) {
  Dwarf_Op* ops = nullptr;
  size_t nops = 0;
  rule.cfa_kind = Rule::kCfaNone;
  if (::dwarf_frame_cfa(frame, &ops, &nops) != 0 || nops == 0 || nops > 2) return;
  uint64_t reg = 0;
  int64_t off = 0;
  if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
    reg = ops[0].atom - DW_OP_breg0;
    off = static_cast<int64_t>(ops[0].number);
  } else if (ops[0].atom == DW_OP_bregx) {
    reg = ops[0].number;
    off = static_cast<int64_t>(ops[0].number2);
  } else {
    return;
  }
  if (reg >= kMaxDwarfRegs || !fitsInt32(off)) return;
  if (nops == 2 && ops[1].atom != DW_OP_deref) return;
  rule.cfa_kind = nops == 2 ? Rule::kCfaRegDeref : Rule::kCfaReg;
  rule.cfa_reg = static_cast<uint8_t>(reg);
  rule.cfa_off = static_cast<int32_t>(off);
}

bool compile(Dwarf_CFI* cfi, uint64_t svma, Rule& rule) {
  if (cfi == nullptr) return false;
  Dwarf_Frame* frame = nullptr;
  if (::dwarf_cfi_addrframe(cfi, svma, &frame) != 0 || frame == nullptr) return false;
  Dwarf_Addr start = 0;
  Dwarf_Addr end = 0;
  bool signal = false;
  const int ra_reg = ::dwarf_frame_info(frame, &start, &end, &signal);
  rule = Rule{};
  // Signal trampolines restore every register from a sigcontext: not a
  // rule strobe evaluates (the frame-pointer splice takes over).
  if (ra_reg >= 0 && !signal) {
    cfaRule(frame, rule);
    registerRule(frame, ra_reg, rule.ra, rule.ra_off);
    registerRule(frame, archRegs().fp, rule.fp, rule.fp_off);
  }
  std::free(frame);
  return rule.cfa_kind != Rule::kCfaNone;
}

// Whether the section `name` of `elf` (absent: yes) names only registers
// below kMaxCfiRegister. A compressed .debug_frame is checked as libdw
// would read it, inflated.
bool boundedCfi(Elf* elf, std::string_view name) {
  size_t shstrndx = 0;
  if (::elf_getshdrstrndx(elf, &shstrndx) != 0) return true;
  for (Elf_Scn* scn = nullptr; (scn = ::elf_nextscn(elf, scn)) != nullptr;) {
    GElf_Shdr sh;
    if (::gelf_getshdr(scn, &sh) == nullptr || sh.sh_type == SHT_NOBITS) continue;
    const char* n = ::elf_strptr(elf, shstrndx, sh.sh_name);
    if (n == nullptr || name != n) continue;
    if ((sh.sh_flags & SHF_COMPRESSED) != 0 && ::elf_compress(scn, 0, 0) < 0) return false;
    Elf_Data* d = ::elf_getdata(scn, nullptr);
    if (d == nullptr || d->d_buf == nullptr) return true;
    return cfiRegistersBounded({static_cast<const uint8_t*>(d->d_buf), d->d_size},
                               name == ".eh_frame");
  }
  return true;
}

// The bytes and address of section `name`, when it has bytes in the file.
bool sectionBytes(Elf* elf, std::string_view name, std::span<const uint8_t>& bytes,
                  uint64_t& vaddr) {
  size_t shstrndx = 0;
  if (::elf_getshdrstrndx(elf, &shstrndx) != 0) return false;
  for (Elf_Scn* scn = nullptr; (scn = ::elf_nextscn(elf, scn)) != nullptr;) {
    GElf_Shdr sh;
    if (::gelf_getshdr(scn, &sh) == nullptr || sh.sh_type == SHT_NOBITS) continue;
    const char* n = ::elf_strptr(elf, shstrndx, sh.sh_name);
    if (n == nullptr || name != n || (sh.sh_flags & SHF_COMPRESSED) != 0) continue;
    Elf_Data* d = ::elf_rawdata(scn, nullptr);
    if (d == nullptr || d->d_buf == nullptr) return false;
    bytes = {static_cast<const uint8_t*>(d->d_buf), d->d_size};
    vaddr = sh.sh_addr;
    return true;
  }
  return false;
}

// Whether section `name` is there, compressed.
bool hasCompressedSection(Elf* elf, std::string_view name) {
  size_t shstrndx = 0;
  if (::elf_getshdrstrndx(elf, &shstrndx) != 0) return false;
  for (Elf_Scn* scn = nullptr; (scn = ::elf_nextscn(elf, scn)) != nullptr;) {
    GElf_Shdr sh;
    if (::gelf_getshdr(scn, &sh) == nullptr) continue;
    const char* n = ::elf_strptr(elf, shstrndx, sh.sh_name);
    if (n != nullptr && name == n && (sh.sh_flags & SHF_COMPRESSED) != 0) return true;
  }
  return false;
}

// .eh_frame_hdr's search table over .eh_frame, when both can be read so.
std::optional<EhFrameIndex> ehFrameIndexOf(Elf* elf) {
  std::span<const uint8_t> hdr, frame;
  uint64_t hdr_vaddr = 0, frame_vaddr = 0;
  if (!sectionBytes(elf, ".eh_frame_hdr", hdr, hdr_vaddr) ||
      !sectionBytes(elf, ".eh_frame", frame, frame_vaddr)) {
    return std::nullopt;
  }
  return ehFrameIndex(hdr, hdr_vaddr, frame, frame_vaddr);
}

void initLibelf() {
  static std::once_flag once;
  std::call_once(once, [] { ::elf_version(EV_CURRENT); });
}

}  // namespace

ModuleCfi::~ModuleCfi() {
  if (eh_cfi_ != nullptr) ::dwarf_cfi_end(eh_cfi_);
  if (dwarf_ != nullptr) ::dwarf_end(dwarf_);
  if (elf_ != nullptr) ::elf_end(elf_);
  if (fd_ >= 0) ::close(fd_);
}

Result<std::unique_ptr<ModuleCfi>> ModuleCfi::open(const std::string& path) {
  initLibelf();
  std::unique_ptr<ModuleCfi> m(new ModuleCfi());
  m->path_ = path;
  m->fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (m->fd_ < 0) return systemError("cannot open " + path + " for its unwind tables");
  m->elf_ = ::elf_begin(m->fd_, ELF_C_READ_MMAP, nullptr);
  if (m->elf_ == nullptr || ::elf_kind(m->elf_) != ELF_K_ELF) {
    return makeError(path + ": not an ELF file", {}, ErrorKind::kCorrupt);
  }
  size_t phnum = 0;
  if (::elf_getphdrnum(m->elf_, &phnum) != 0) {
    return makeError(path + ": bad program header count", {}, ErrorKind::kCorrupt);
  }
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr ph;
    if (::gelf_getphdr(m->elf_, static_cast<int>(i), &ph) == nullptr || ph.p_type != PT_LOAD) {
      continue;
    }
    m->segments_.push_back(Segment{ph.p_offset, ph.p_vaddr, ph.p_filesz});
  }
  m->eh_index_ = ehFrameIndexOf(m->elf_);
  std::span<const uint8_t> debug_frame;
  uint64_t unused = 0;
  m->has_debug_frame_ = sectionBytes(m->elf_, ".debug_frame", debug_frame, unused) ||
                        hasCompressedSection(m->elf_, ".debug_frame");
  return m;
}

::Dwarf_CFI_s* ModuleCfi::ehCfi() const {
  if (!eh_tried_) {
    eh_tried_ = true;
    // CFI naming registers no code has would make libdw allocate gigabytes
    // (cfi_registers.hpp): such a file's CFI is not used.
    if (boundedCfi(elf_, ".eh_frame")) eh_cfi_ = ::dwarf_getcfi_elf(elf_);
  }
  return eh_cfi_;
}

std::optional<uint64_t> ModuleCfi::svmaOf(uint64_t file_offset) const {
  for (const Segment& s : segments_) {
    if (file_offset >= s.offset && file_offset - s.offset < s.size) {
      return file_offset - s.offset + s.vaddr;
    }
  }
  return std::nullopt;
}

CfaAt ModuleCfi::cfaAt(uint64_t file_offset) const {
  const std::optional<uint64_t> svma = svmaOf(file_offset);
  if (!eh_index_ || !svma) return CfaAt{};
  CfaAt at = unwind::cfaAt(*eh_index_, *svma);
  // No FDE of .eh_frame: libdw would look in .debug_frame next.
  if (at.kind == CfaAt::kNoFde) at.kind = has_debug_frame_ ? CfaAt::kUnknown : CfaAt::kNone;
  return at;
}

Dwarf_CFI* ModuleCfi::debugCfi() const {
  if (!debug_tried_) {
    debug_tried_ = true;
    if (boundedCfi(elf_, ".debug_frame")) {
      dwarf_ = ::dwarf_begin_elf(elf_, DWARF_C_READ, nullptr);
      if (dwarf_ != nullptr) debug_cfi_ = ::dwarf_getcfi(dwarf_);
    }
  }
  return debug_cfi_;
}

bool ModuleCfi::hasCfi() const {
  return ehCfi() != nullptr || debugCfi() != nullptr;
}

void ModuleCfi::releasePages() const {
  size_t size = 0;
  char* raw = ::elf_rawfile(elf_, &size);
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  if (raw == nullptr || size == 0 || reinterpret_cast<uintptr_t>(raw) % page != 0) return;
  // elf_begin(ELF_C_READ_MMAP) mapped the file read-only and private.
  ::madvise(raw, size, MADV_DONTNEED);
}

bool ModuleCfi::usesFramePointers() const {
  if (uses_fp_ < 0) uses_fp_ = judgeFramePointers() ? 1 : 0;
  return uses_fp_ == 1;
}

Rule ModuleCfi::ruleAtSvma(uint64_t svma) const {
  Rule rule;
  if (compile(ehCfi(), svma, rule)) return rule;
  if (compile(debugCfi(), svma, rule)) return rule;
  return Rule{};
}

Rule ModuleCfi::ruleAt(uint64_t file_offset) const {
  const std::optional<uint64_t> svma = svmaOf(file_offset);
  return svma ? ruleAtSvma(*svma) : Rule{};
}

bool ModuleCfi::judgeFramePointers() const {
  if (!hasCfi()) return false;
  Elf_Scn* table = nullptr;
  for (Elf_Scn* scn = nullptr; (scn = ::elf_nextscn(elf_, scn)) != nullptr;) {
    GElf_Shdr sh;
    if (::gelf_getshdr(scn, &sh) == nullptr) continue;
    if (sh.sh_type == SHT_SYMTAB) table = scn;
    if (sh.sh_type == SHT_DYNSYM && table == nullptr) table = scn;
  }
  GElf_Shdr sh;
  Elf_Data* data = table != nullptr ? ::elf_getdata(table, nullptr) : nullptr;
  if (data == nullptr || ::gelf_getshdr(table, &sh) == nullptr || sh.sh_entsize == 0) return false;
  const size_t count = sh.sh_size / sh.sh_entsize;
  const size_t step = count > kFramePointerProbes ? count / kFramePointerProbes : 1;
  size_t probed = 0;
  size_t with_fp = 0;
  for (size_t i = 0; i < count && probed < kFramePointerProbes; i += step) {
    GElf_Sym sym;
    if (::gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) continue;
    if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF ||
        sym.st_size < kMinProbedFunctionSize) {
      continue;
    }
    Rule r = ruleAtSvma(sym.st_value + sym.st_size / 2);
    if (r.cfa_kind == Rule::kCfaNone) continue;
    ++probed;
    if (r.cfa_kind == Rule::kCfaReg && r.cfa_reg == archRegs().fp) ++with_fp;
  }
  return probed > 0 && with_fp * 2 > probed;
}

}  // namespace strobe::unwind
