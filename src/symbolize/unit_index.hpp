// UnitIndex: the lookup structures of one DWARF compile unit, and
// UnitBuilder, which reads them through libdw. DwarfIndex owns the units and
// looks addresses up in them; this file only builds them.
//
// A unit's index: its line table as sorted, non-overlapping address ranges
// (of several rows at one address the last wins, as in binutils), and the
// code of its subprograms and inlined subroutines (DW_AT_low_pc/high_pc,
// high_pc as an offset, or DW_AT_ranges) painted into sorted,
// non-overlapping segments, each naming its innermost scope.
//
// A BuiltUnit owns everything it found (file names as strings, DIE offsets,
// no libdw pointers), so it outlives the Dwarf handle that read it and can be
// built on any thread. Thread safety: a UnitBuilder is used by one thread at
// a time; builders on distinct Dwarf handles over the same Elf may run at
// once (the handles must have been opened before the threads start).
// Malformed DWARF yields fewer rows and scopes, never a crash.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

struct Dwarf;

namespace strobe::symbolize {

inline constexpr uint32_t kNoFile = UINT32_MAX;
inline constexpr int kMaxDieDepth = 64;  // deeper DIE nesting than any real program: hostile input

// A line-table row and the addresses it covers, [lo, hi).
struct LineRange {
  uint64_t lo = 0;
  uint64_t hi = 0;
  uint32_t line = 0;
  uint32_t file = kNoFile;  // index into UnitIndex::files
  uint32_t discriminator = 0;
};

// A subprogram or inlined subroutine with code.
struct Scope {
  uint64_t die = 0;
  uint32_t id = 0;      // dense function id: the scope's index until adopted
  int32_t parent = -1;  // the enclosing function scope, -1 at the top
  uint32_t call_file = kNoFile;
  uint32_t call_line = 0;
  bool inlined = false;
};

// [lo, next segment's lo) belongs to `scope` (-1: to no function).
struct Segment {
  uint64_t lo = 0;
  int32_t scope = -1;
};

struct UnitIndex {
  std::vector<std::string_view> files;  // set by the owner from BuiltUnit::file_names
  std::vector<LineRange> lines;         // sorted by lo, non-overlapping
  std::vector<Scope> scopes;
  std::vector<Segment> segments;  // sorted by lo
  // lines[i].lo and segments[i].lo alone: the binary searches touch a
  // quarter (half) of the cache lines they would in the rows themselves.
  std::vector<uint64_t> line_lo;
  std::vector<uint64_t> segment_lo;

  // The row covering pc, or nullptr.
  [[nodiscard]] const LineRange* rowAt(uint64_t pc) const;
  // The innermost scope covering pc, or -1.
  [[nodiscard]] int32_t scopeAt(uint64_t pc) const;
};

struct BuiltUnit {
  UnitIndex index;
  std::vector<std::string> file_names;  // the line table's files, absolute (DW_AT_comp_dir)
  std::vector<uint64_t> low_pcs;        // per scope: the first address of its first range
};

// One row of a unit's line program, in program order `order`.
struct LineRow {
  uint64_t addr;
  uint32_t order;
  uint32_t line;
  uint32_t file;
  uint32_t discriminator;
  bool end;
};

class UnitBuilder {
 public:
  // The index of the unit whose DIE is at `cu_offset`; empty when libdw
  // cannot read it.
  BuiltUnit build(Dwarf* dwarf, uint64_t cu_offset);

 private:
  std::vector<LineRow> rows_;  // reused: a fresh large vector per unit costs page faults
};

// `file` made absolute with `dir` (a unit's DW_AT_comp_dir) when relative.
std::string joinDir(const char* dir, const char* file);

}  // namespace strobe::symbolize
