// A unit's line-number program (DWARF 2 to 5, section 6.2 of DWARF 5),
// decoded by strobe into the rows and file names UnitBuilder indexes.
//
// libdw's dwarf_getsrclines (also behind dwarf_getsrcfiles) builds a linked
// list of every row, sorts it and keeps the result for the life of the
// handle: for the large test fixture that was 53 M instructions and about a
// thousand page faults, for tables strobe copies into its own index anyway.
// readLineProgram decodes straight into UnitBuilder's reused row buffer.
// Its file names are libdw's: for DWARF < 5 index 0 is "???" and directory 0
// the unit's DW_AT_comp_dir; a relative name is joined to its directory
// ("dir/name"), and joinDir then makes the result absolute with comp_dir.
// Rows come in program order; the caller sorts them.
//
// Anything it does not read (an unknown version or form, a file name held
// in .debug_str_offsets, truncated or inconsistent data) makes it return
// false, and the caller asks libdw (libdwLineProgram, the same results; the
// tests hold the two to that). Never reads outside the given sections.
// Thread safety: pure functions over read-only bytes.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "symbolize/debug_sections.hpp"
#include "symbolize/unit_index.hpp"

#include <elfutils/libdw.h>

namespace strobe::symbolize {

// The program at `offset` in .debug_line (a unit's DW_AT_stmt_list), for a
// unit whose DW_AT_comp_dir is `comp_dir` (nullptr when absent).
bool readLineProgram(const DebugSections& s, uint64_t offset, const char* comp_dir,
                     std::vector<std::string>& files, std::vector<LineRow>& rows);

// A unit's files and rows: strobe's decoder on the unit's DW_AT_stmt_list,
// else libdw's (libdwLineProgram). False when neither reads them.
bool unitLines(Dwarf_Die* cudie, const DebugSections& s, std::vector<std::string>& files,
               std::vector<LineRow>& rows);

// The same through libdw (dwarf_getsrcfiles, dwarf_getsrclines).
bool libdwLineProgram(Dwarf_Die* cudie, std::vector<std::string>& files,
                      std::vector<LineRow>& rows);

}  // namespace strobe::symbolize
