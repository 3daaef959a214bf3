// Reading a unit's function scopes (subprograms, inlined subroutines and
// entry points with code) for UnitBuilder, two ways with one result:
//
// - scanScopes reads the unit's DIE bytes through a UnitReader
//   (die_reader.hpp): it steps over DIEs by their abbreviations' form sizes
//   and over whole subtrees through DW_AT_sibling, reads DW_FORM_sec_offset
//   range lists from .debug_rnglists / .debug_ranges itself (index forms go
//   to dwarf_ranges), and has libdw decode the values it keeps. libdw's
//   DIE-by-DIE walk (dwarf_child / dwarf_siblingof / dwarf_getattrs)
//   decodes every attribute of every DIE it passes and cost about 40% of a
//   symbolization.
// - walkScopes walks with libdw's API: the fallback for a unit scanScopes
//   does not read (a form it does not know, a big-endian file, a truncated
//   unit), and the reference the scanner is tested against.
//
// Both enter what can hold code (functions with code, lexical, try and catch
// blocks, namespaces, modules) and skip the rest, types included: GCC and
// Clang put member functions' code in out-of-line DIEs at namespace level.
// Thread safety: as UnitBuilder (one thread per Dwarf handle).
#pragma once

#include <cstdint>
#include <vector>

#include "symbolize/debug_sections.hpp"
#include "symbolize/unit_index.hpp"

#include <elfutils/libdw.h>

namespace strobe::symbolize {

// Collects scopes and their ranges into a ScopeOutput: begin() a DIE,
// range() each of its ranges, end().
class ScopeSink {
 public:
  explicit ScopeSink(ScopeOutput& out) : out_(out) {}
  void begin(uint64_t die, int32_t parent, bool inlined, uint64_t call_file, uint64_t call_line,
             uint64_t names_from);
  void range(uint64_t lo, uint64_t hi);
  // The scope the DIE became, or -1 when none of its ranges held code.
  [[nodiscard]] int32_t end() const { return scope_; }
  // Drops every scope and range collected (a scan given up half way).
  void reset();

 private:
  ScopeOutput& out_;
  Scope pending_;
  bool has_lo_ = false;
  uint64_t first_lo_ = 0;  // the DIE's low_pc, even of an empty range
  int32_t scope_ = -1;
};

// False, with `sink` emptied, when the unit cannot be read this way.
// `sections`: debugSections() of the handle's file (range lists).
bool scanScopes(Dwarf_Die* cudie, const DebugSections& sections, ScopeSink& sink);
void walkScopes(Dwarf_Die* cudie, ScopeSink& sink);

}  // namespace strobe::symbolize
