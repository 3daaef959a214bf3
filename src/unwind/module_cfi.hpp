// ModuleCfi: the call frame information of one ELF file (.eh_frame, then
// .debug_frame), read through libdw, and the compact Rule strobe unwinds
// with. A Rule says, for one pc, how to find the canonical frame address
// (CFA) and where the caller's return address and frame pointer are. It is
// what a DWARF CFI row means for the registers strobe tracks, and it is
// small (16 bytes) so the Unwinder can memoize one per (module, pc).
//
// Owns: the file descriptor, the Elf* and the libdw handles, released on
// destruction. Thread safety: none; one thread uses a ModuleCfi.
// Async-signal safety: none (libdw allocates).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "unwind/cfa_register.hpp"

// libelf's and libdw's handles (<libelf.h>, <elfutils/libdw.h>).
struct Elf;
struct Dwarf;
struct Dwarf_CFI_s;

namespace strobe::unwind {

struct Rule {
  enum Cfa : uint8_t {
    kCfaNone,      // no CFI covers the pc, or its CFA rule is not one strobe evaluates
    kCfaReg,       // CFA = reg + cfa_off
    kCfaRegDeref,  // CFA = *(reg + cfa_off)  (stack-realigning prologues)
  };
  enum Reg : uint8_t {
    kUndefined,    // not recoverable; for the return address: the outermost frame
    kSame,         // unchanged by this frame
    kAtCfa,        // saved at CFA + off
    kValCfa,       // the value CFA + off
    kUnsupported,  // a rule strobe does not evaluate
  };
  uint8_t cfa_kind = kCfaNone;
  uint8_t cfa_reg = 0;
  uint8_t ra = kUnsupported;
  uint8_t fp = kSame;
  int32_t cfa_off = 0;
  int32_t ra_off = 0;
  int32_t fp_off = 0;
};
static_assert(sizeof(Rule) == 16);

class ModuleCfi {
 public:
  // Opens `path` and finds its CFI. A file without any CFI opens fine (every
  // ruleAt() then says kCfaNone); a missing or non-ELF file is an error.
  static Result<std::unique_ptr<ModuleCfi>> open(const std::string& path);
  ~ModuleCfi();
  ModuleCfi(const ModuleCfi&) = delete;
  ModuleCfi& operator=(const ModuleCfi&) = delete;

  // The rule at a file offset (translated to the ELF address through the
  // PT_LOAD segment that holds it). Parses CFI: memoize the result.
  [[nodiscard]] Rule ruleAt(uint64_t file_offset) const;
  // The rule at an ELF address (SVMA).
  [[nodiscard]] Rule ruleAtSvma(uint64_t svma) const;
  // How the CFA is computed at a file offset, read from .eh_frame through
  // .eh_frame_hdr's table without libdw (cfa_register.hpp): kRegister or
  // kNone as ruleAt's rule would say, kUnknown where only ruleAt can tell.
  [[nodiscard]] CfaAt cfaAt(uint64_t file_offset) const;

  // Whether the code keeps a frame-pointer chain: of up to 256 functions of
  // the symbol table (.symtab, else .dynsym; 16 bytes or longer), more than
  // half have a CFA computed from the frame pointer at their midpoint (past
  // the prologue). Judged on the first call (-g auto only), then kept.
  [[nodiscard]] bool usesFramePointers() const;
  [[nodiscard]] bool hasCfi() const;
  // Lets go of the file's mapped pages (read-only: they are read again from
  // the page cache when needed).
  void releasePages() const;
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  struct Segment {
    uint64_t offset, vaddr, size;
  };
  ModuleCfi() = default;
  bool judgeFramePointers() const;
  // libdw's .eh_frame CFI, opened on the first rule asked for (its check
  // reads the whole section); .debug_frame on the first pc .eh_frame does
  // not cover.
  ::Dwarf_CFI_s* ehCfi() const;
  ::Dwarf_CFI_s* debugCfi() const;
  [[nodiscard]] std::optional<uint64_t> svmaOf(uint64_t file_offset) const;

  std::string path_;
  int fd_ = -1;
  ::Elf* elf_ = nullptr;
  mutable ::Dwarf_CFI_s* eh_cfi_ = nullptr;  // .eh_frame (ours to end)
  mutable bool eh_tried_ = false;
  std::optional<EhFrameIndex> eh_index_;  // into the mapped file
  bool has_debug_frame_ = false;
  mutable ::Dwarf* dwarf_ = nullptr;            // for .debug_frame, when present
  mutable ::Dwarf_CFI_s* debug_cfi_ = nullptr;  // .debug_frame (owned by dwarf_)
  mutable bool debug_tried_ = false;
  std::vector<Segment> segments_;
  mutable int8_t uses_fp_ = -1;  // -1: not judged yet
};

}  // namespace strobe::unwind
