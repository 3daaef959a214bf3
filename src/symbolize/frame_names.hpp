// nameFrames(): the inline chain at one address with strobe's names, the
// one place that decides what a frame is called (used by the Symbolizer and
// by `strobe symbolize --json`).
//
// Rules: DWARF first (DW_AT_linkage_name demangled, else DW_AT_name,
// qualified by its enclosing scopes when `qualify`: scope_names.hpp); the
// outermost frame falls back to the symbol table (C functions and internal
// C++ functions have no linkage name; the symbol that starts the function or
// a clone of it has the full name; of several at one address the table
// prefers the global, public one with the fewest leading underscores,
// symbol_table.hpp). A linkage name that is not mangled is an assembler
// label (glibc's __GI___libc_malloc) and is passed over for those names.
// Symbol versions (name@VER, name@@VER) and clone suffixes (.part.N,
// .cold, ...) are dropped from the display name and kept in system_name;
// never "??" when a symbol table knows the name. Without a DWARF function,
// the symbol alone (with the line-table row, if any).
// Owns: the NamedFrames it appends (strings copied or pointing into the
// DwarfIndex / SymbolTable, which must outlive them).
// Thread safety: as DwarfIndex (one thread at a time per index).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/types.hpp"
#include "symbolize/dwarf_index.hpp"
#include "symbolize/symbol_table.hpp"

namespace strobe::symbolize {

struct NamedFrame {
  std::string name;              // demangled, clone suffix dropped; "??" when unknown
  std::string_view system_name;  // mangled (with clone suffix)
  std::string_view file;         // the function's source file ("" when unknown)
  uint32_t line = 0;             // of `file`; 0 when unknown
  uint32_t decl_line = 0;        // where the function is declared, 0 when unknown
  std::string_view line_file;    // the file the line table / call site names
  uint32_t raw_line = 0;         // the line in line_file
  bool inlined = false;
};

// Appends the frames at `pc`, innermost first (the last one is the real
// function). Appends nothing when neither DWARF nor the symbols know pc.
// `qualify`: name DWARF-only functions by their qualified name (reports);
// off, by DW_AT_name alone.
void nameFrames(DwarfIndex& dwarf, const SymbolTable& symbols, Svma pc, std::vector<Frame>& scratch,
                std::vector<NamedFrame>& out, bool qualify = true);

// The symbol without its version: "__libc_start_main@@GLIBC_2.34" ->
// "__libc_start_main"; unchanged when it has none.
std::string_view withoutVersion(std::string_view symbol);

}  // namespace strobe::symbolize
