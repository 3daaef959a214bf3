// SymbolTable: the function symbols of one ELF file, for address lookups.
//
// Owns: a sorted copy of the FUNC and IFUNC symbols of `.symtab` and
// `.dynsym` merged (names copied, so the table outlives the ElfFile it was
// read from). One symbol is kept per address: aliases are resolved
// deterministically (global/unique, then weak, then local; then a default
// symbol version over a hidden one, e.g. free@@GLIBC over cfree@GLIBC; then a
// sized symbol over a size-0 one; then fewer leading underscores; then the
// smaller name). Symbols with size 0 cover up to the next symbol or the end
// of their section. Nested symbols are handled: an address past the end of
// the nearest preceding symbol falls back to an enclosing one.
// Malformed tables are skipped, never fatal: a corrupt `.symtab` yields
// whatever could be read plus `.dynsym`.
// Thread safety: immutable after construction; lookups may run concurrently.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/types.hpp"

namespace strobe::symbolize {

class ElfFile;

// A symbol as read from a table, before merging.
struct RawSymbol {
  std::string_view name;
  uint64_t value = 0;  // SVMA
  uint64_t size = 0;
  uint8_t binding = 0;          // STB_LOCAL, STB_GLOBAL, STB_WEAK, STB_GNU_UNIQUE
  uint64_t limit = UINT64_MAX;  // end of the symbol's section (bounds size-0 symbols)
  bool hidden_version = false;  // a non-default symbol version (name@VER, not name@@VER)
};

// The result of a lookup; `name` points into the table.
struct SymbolMatch {
  std::string_view name;  // as in the symbol table (mangled)
  Svma start;
  uint64_t size = 0;  // as stated in the table (0 for size-0 symbols)
  Svma end;           // where the symbol's coverage ends (exclusive; size-0 symbols: the next)
};

class SymbolTable {
 public:
  SymbolTable() = default;
  // Reads `.symtab` and `.dynsym` of `elf`.
  static SymbolTable read(const ElfFile& elf);
  // Merges raw symbols (the names are copied).
  static SymbolTable build(std::vector<RawSymbol> symbols);

  // The symbol containing `addr`, or nullopt.
  [[nodiscard]] std::optional<SymbolMatch> lookup(Svma addr) const;
  // The symbol starting nearest before or at `addr`, whatever its size (as
  // binutils names addresses in padding after a function), or nullopt.
  [[nodiscard]] std::optional<SymbolMatch> nearest(Svma addr) const;
  [[nodiscard]] size_t size() const { return entries_.size(); }
  [[nodiscard]] bool empty() const { return entries_.empty(); }

 private:
  static constexpr uint32_t kNoParent = UINT32_MAX;
  struct Entry {
    uint64_t start = 0;
    uint64_t end = 0;   // exclusive
    uint64_t size = 0;  // as stated
    size_t name_offset = 0;
    uint32_t name_length = 0;
    uint32_t parent = kNoParent;  // nearest earlier entry whose range holds `start`
  };
  std::string names_;
  std::vector<Entry> entries_;
};

}  // namespace strobe::symbolize
