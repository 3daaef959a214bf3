// DwarfLines: source lines of addresses in one ELF file, from its DWARF.
//
// The small interface the symbolizer uses for DWARF; this first version asks
// libdw per address (dwarf_addrdie + dwarf_getsrc_die; a walk of the unit's
// DIEs for a function's declaration). A later version replaces the implementation with
// strobe-owned per-CU indexes and inline chains behind the same calls.
//
// Owns: the Dwarf handle (dwarf_end on destruction) and a lazily built index
// of compile-unit ranges (used when .debug_aranges misses an address).
// Borrows: the ElfFile's Elf*; a DwarfLines must not outlive that ElfFile.
// A file without debug information is not an error: every lookup returns
// nullopt and hasDebugInfo() is false.
// File names are as libdw gives them, made absolute with the unit's
// DW_AT_comp_dir when relative (as addr2line prints them).
// Thread safety: none (libdw caches lazily); one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "base/types.hpp"

namespace strobe::symbolize {

class ElfFile;

struct SourceLine {
  std::string file;
  uint32_t line = 0;  // 0: the compiler attributed the address to no line
};

class DwarfLines {
 public:
  explicit DwarfLines(const ElfFile& elf);
  DwarfLines(DwarfLines&&) noexcept;
  DwarfLines& operator=(DwarfLines&&) noexcept;
  ~DwarfLines();

  [[nodiscard]] bool hasDebugInfo() const;
  // The line-table row covering `pc` (the innermost, inlined-into line when
  // code was inlined), or nullopt.
  [[nodiscard]] std::optional<SourceLine> lookup(Svma pc) const;
  // Where the function starting at `function_start` is declared: the
  // subprogram's DW_AT_decl_file / DW_AT_decl_line, or else the line-table
  // row at its first instruction; nullopt when DWARF knows neither.
  [[nodiscard]] std::optional<SourceLine> declaration(Svma function_start) const;
  // declaration(function_start)'s line, 0 when unknown.
  [[nodiscard]] uint32_t startLine(Svma function_start) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace strobe::symbolize
