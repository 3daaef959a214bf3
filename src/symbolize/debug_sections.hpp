// DebugSections: the bytes of the DWARF sections strobe decodes itself
// (line programs, range lists), as libdw reads them: taken from the Elf
// after dwarf_begin_elf, which inflates compressed sections in place (or
// from ElfFile's inflated copy). A section absent or still compressed is
// left empty, and its readers then leave the work to libdw.
// Borrows: the Elf's memory; valid while the Elf and its Dwarf handle live.
// Thread safety: read-only views, shared by every worker of one file.
#pragma once

#include <cstdint>
#include <span>

struct Elf;

namespace strobe::symbolize {

struct DebugSections {
  std::span<const uint8_t> info;      // .debug_info
  std::span<const uint8_t> line;      // .debug_line
  std::span<const uint8_t> line_str;  // .debug_line_str
  std::span<const uint8_t> str;       // .debug_str
  std::span<const uint8_t> ranges;    // .debug_ranges (DWARF < 5)
  std::span<const uint8_t> rnglists;  // .debug_rnglists (DWARF 5)
  std::span<const uint8_t> aranges;   // .debug_aranges
};

DebugSections debugSections(Elf* elf);

}  // namespace strobe::symbolize
