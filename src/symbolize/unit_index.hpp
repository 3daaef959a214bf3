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
struct DebugSections;
}

namespace strobe::symbolize {

inline constexpr uint32_t kNoFile = UINT32_MAX;
inline constexpr int kMaxDieDepth = 64;  // deeper DIE nesting than any real program: hostile input

// What a line-table row says of the addresses it covers.
struct LineInfo {
  uint32_t line = 0;        // kGapLine: no row covers these addresses
  uint32_t file = kNoFile;  // index into UnitIndex::files
  uint32_t discriminator = 0;
};
inline constexpr uint32_t kGapLine = UINT32_MAX;  // libdw's line numbers are ints

// A subprogram or inlined subroutine with code.
struct Scope {
  uint64_t die = 0;
  // The DIE all of this one's names come from, its abstract origin or
  // specification, when it has no name or declaration attribute of its
  // own (an inlined instance, an out-of-line copy); 0 when its own DIE must
  // be read, or the reference is of a form the scan does not follow.
  uint64_t names_from = 0;
  uint32_t id = 0;      // dense function id: the scope's index until adopted
  int32_t parent = -1;  // the enclosing function scope, -1 at the top
  uint32_t call_file = kNoFile;
  uint32_t call_line = 0;
  bool inlined = false;
};

// Buckets over sorted range starts: bucket k holds the index of the first
// start at or past base + (k << shift), so a lookup binary-searches a
// handful of starts in one or two cache lines instead of halving the whole
// table (lookups of random addresses missed the cache on most halvings).
struct StartBuckets {
  uint64_t base = 0;
  unsigned shift = 0;
  std::vector<uint32_t> first;
  void build(const std::vector<uint64_t>& starts);
  // std::upper_bound(starts, pc) as an index.
  [[nodiscard]] size_t upperBound(const std::vector<uint64_t>& starts, uint64_t pc) const;
};

// Each table is kept as parallel arrays, the sorted range starts apart, so
// a lookup's binary search reads 8-byte keys only (about a third of the
// memory a row-per-range table with its own end takes, which also counts in
// page faults while building).
struct UnitIndex {
  std::vector<std::string_view> files;  // set by the owner from BuiltUnit::file_names
  // The line table: row i covers [line_lo[i], line_lo[i + 1]); the last row
  // is always a gap (kGapLine), the end of the last sequence.
  std::vector<uint64_t> line_lo;
  std::vector<LineInfo> line_info;
  std::vector<Scope> scopes;
  // Painted scopes: [segment_lo[i], segment_lo[i + 1]) belongs to
  // segment_scope[i] (-1: to no function); the last segment is -1.
  std::vector<uint64_t> segment_lo;
  std::vector<int32_t> segment_scope;
  StartBuckets line_buckets;     // over line_lo
  StartBuckets segment_buckets;  // over segment_lo

  // The row covering pc, or nullptr.
  [[nodiscard]] const LineInfo* rowAt(uint64_t pc) const;
  // The innermost scope covering pc, or -1.
  [[nodiscard]] int32_t scopeAt(uint64_t pc) const;
};

struct BuiltUnit {
  UnitIndex index;
  std::vector<std::string> file_names;  // the line table's files, absolute (DW_AT_comp_dir)
  std::vector<uint64_t> low_pcs;        // per scope: the first address of its first range
  int language = -1;                    // the unit's DW_AT_language, -1 when absent
};

// One row of a unit's line program, in program order `order` (file: the
// program's file register, not yet checked against the file table).
struct LineRow {
  uint64_t addr;
  uint32_t order;
  uint32_t line;
  uint32_t file;
  uint32_t discriminator;
  bool end;
};

// A code range of a scope (scope_scan.hpp collects them).
struct CodeRange {
  uint64_t lo, hi;
  int32_t scope;
};

// What a unit's scan collects, in DIE order (parents before children).
// UnitBuilder keeps one and clears it per unit: its capacity carries over.
struct ScopeOutput {
  std::vector<Scope> scopes;
  std::vector<uint64_t> low_pcs;  // per scope: the first address of its first range
  std::vector<CodeRange> ranges;
  size_t file_count = 0;  // call_file values at or past it are dropped
  void clear() {
    scopes.clear();
    low_pcs.clear();
    ranges.clear();
  }
};

// Scratch space of painting scopes into segments.
struct PaintBuffers {
  std::vector<uint64_t> bounds, bounds_scratch;
  std::vector<uint32_t> by_lo, by_lo_scratch;
  std::vector<uint32_t> heap;
};

class UnitBuilder {
 public:
  // The index of the unit whose DIE is at `cu_offset`; empty when libdw
  // cannot read it. `sections`: debugSections() of the handle's ELF file.
  BuiltUnit build(Dwarf* dwarf, uint64_t cu_offset, const DebugSections& sections);

 private:
  // Reused from unit to unit: a fresh large vector per unit costs page
  // faults.
  std::vector<LineRow> rows_;
  std::vector<LineRow> scratch_;
  UnitIndex stage_;
  ScopeOutput scopes_;
  PaintBuffers paint_;
};

// `file` made absolute with `dir` (a unit's DW_AT_comp_dir) when relative.
std::string joinDir(const char* dir, const char* file);

}  // namespace strobe::symbolize
