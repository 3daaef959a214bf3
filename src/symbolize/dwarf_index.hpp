// DwarfIndex: source lines and inline chains of addresses in one ELF file,
// from its DWARF (4 or 5), through strobe-owned per-unit indexes.
//
// libdw parses; this class owns the lookup structures: per compile unit, a
// UnitIndex (unit_index.hpp: line ranges and painted function scopes, so a
// lookup is two binary searches and a walk up the scope's parents), built
// once on the first address that falls in the unit, or ahead of time for a
// batch of addresses by prepare(), several units at once on worker threads.
// The unit of an address: from .debug_aranges, checked against that unit's
// own ranges; only when those disagree or say nothing are the ranges of
// every unit's DIE read (a walk over the whole of .debug_info: libc's
// 1,900 units took 8 ms, most of a `-g` report's DWARF cost).
// Names are resolved lazily per DIE (DW_AT_linkage_name, else DW_AT_name,
// through DW_AT_abstract_origin / DW_AT_specification, across units with
// DW_FORM_ref_addr) and memoized per DIE along the chain. A function DIE
// with no name or declaration attribute of its own (an inlined instance, an
// out-of-line copy) is not read at all: the scan recorded the DIE it takes
// its names from (Scope::names_from), whose memo its siblings share.
//
// Owns: the Dwarf handle (dwarf_end on destruction), the unit indexes and the
// interned file names that FunctionInfo and Frame views point into (function
// names point into the file's debug sections, which the handle keeps).
// Borrows: the ElfFile's Elf*; a DwarfIndex must not outlive that ElfFile.
// Compressed debug sections are best inflated first
// (ElfFile::inflateDebugSections); libdw otherwise inflates every one itself.
// A file without debug information is not an error: lookups find nothing and
// hasDebugInfo() is false. Malformed DWARF yields fewer frames, never a crash.
// File names are as the line table gives them, made absolute with the unit's
// DW_AT_comp_dir when relative (as addr2line prints them).
// Thread safety: none (indexes are built lazily); one thread at a time.
// prepare() runs its own workers (each on its own Dwarf handle over the same
// Elf) and returns after joining them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/types.hpp"

struct Elf;

namespace strobe::symbolize {

class ElfFile;

struct SourceLine {
  std::string file;
  uint32_t line = 0;  // 0: the compiler attributed the address to no line
};

// One level of an inline chain. Views point into the DwarfIndex.
inline constexpr uint32_t kNoFunction = UINT32_MAX;

struct Frame {
  uint64_t die = 0;                 // DIE offset of the concrete subprogram / inlined
                                    // subroutine; 0 when no function DIE covers the address
  uint32_t function = kNoFunction;  // dense id of that DIE, for function()
  bool inlined = false;
  std::string_view file;       // "" when unknown
  uint32_t line = 0;           // 0 when unknown
  uint32_t discriminator = 0;  // innermost frame only (line table), else 0
};

// A function DIE's names and declaration. Views point into the DwarfIndex.
struct FunctionInfo {
  std::string_view linkage_name;  // DW_AT_linkage_name (mangled), "" when absent
  std::string_view name;          // DW_AT_name, "" when absent
  std::string_view decl_file;     // "" when unknown
  uint32_t decl_line = 0;
  uint64_t low_pc = 0;  // the first address of its first range (0 when none)
  // The unit's language does not mangle names (C, Fortran, assembler, ...):
  // binutils then treats DW_AT_name as a linkage name.
  bool unmangled_language = false;
  // linkage_name if present, else name.
  [[nodiscard]] std::string_view best() const { return linkage_name.empty() ? name : linkage_name; }
};

class DwarfIndex {
 public:
  explicit DwarfIndex(const ElfFile& elf);
  // Reads DWARF from `elf` (a separate debug file); the handle is borrowed.
  explicit DwarfIndex(Elf* elf);
  DwarfIndex(DwarfIndex&&) noexcept;
  DwarfIndex& operator=(DwarfIndex&&) noexcept;
  ~DwarfIndex();

  [[nodiscard]] bool hasDebugInfo() const;

  // Builds, ahead of lookups, the indexes of the units these addresses fall
  // in, on up to `threads` threads (1: on the calling thread), one for each
  // `bytes_per_worker` of units to build (0: no such limit). Lookups give
  // the same answers with or without it; it only makes them parallel.
  // Returns the threads that built (0 without debug information).
  //
  // Why the limit: a thread costs more than it gives on small work. On the
  // 2-vCPU VM of docs/BENCHMARKS.md a new thread took 0.1-4 ms to first
  // run, and the bench's 2.2 MB of units built in the same wall time on one
  // thread as on two, for 4 ms more CPU time. 4 MB of .debug_info is about
  // 15 ms of building on one thread.
  static constexpr size_t kBytesPerWorker = size_t{4} << 20;
  unsigned prepare(const std::vector<Svma>& pcs, unsigned threads,
                   size_t bytes_per_worker = kBytesPerWorker);

  // The frames at `pc`, innermost first: the innermost's line is the line
  // table row, each outer frame's line is the call site of the frame inside
  // it; the last frame is the real (outermost) function. Appends to `out`
  // (cleared first); returns false when DWARF knows nothing about pc (no
  // unit, or neither a line row nor a function covers it). When only the
  // line table covers pc, one frame with die == 0 is returned.
  bool frames(Svma pc, std::vector<Frame>& out);

  // Names and declaration of a Frame's function (its `function` id; ids are
  // dense, from 0 to functionCount() - 1). The reference stays valid for the
  // DwarfIndex's lifetime.
  const FunctionInfo& function(uint32_t id);
  [[nodiscard]] size_t functionCount() const;
  // A Frame's function named with its enclosing namespaces, classes and
  // functions (scope_names.hpp), for functions without a linkage name; ""
  // when it has no name. Reads the DIE tree of the units it needs once
  // (not the lookup path; `strobe symbolize` never calls it). The view
  // stays valid for the DwarfIndex's lifetime.
  std::string_view qualifiedName(uint32_t id);

  // The line-table row covering `pc` (the innermost line), or nullopt.
  [[nodiscard]] std::optional<SourceLine> lookup(Svma pc);
  // Where the function covering `function_start` is declared: the
  // outermost function's DW_AT_decl_file / DW_AT_decl_line, or else the
  // line-table row at its first instruction; nullopt when DWARF knows neither.
  [[nodiscard]] std::optional<SourceLine> declaration(Svma function_start);
  // declaration(function_start)'s line, 0 when unknown.
  [[nodiscard]] uint32_t startLine(Svma function_start);

  // The line-table rows of [lo, hi) in address order, from the unit that
  // covers lo: each row holds from its `address` (lo for the first) to the
  // next row; line 0 and file "" where no row covers the code. Empty when
  // DWARF knows nothing of lo. Files are views into the DwarfIndex.
  struct LineRange {
    uint64_t address = 0;
    std::string_view file;
    uint32_t line = 0;
  };
  [[nodiscard]] std::vector<LineRange> lineRows(Svma lo, Svma hi);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace strobe::symbolize
