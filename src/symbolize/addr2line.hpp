// Addr2Line: `strobe symbolize`'s engine; answers like binutils addr2line.
//
// answer() prints exactly what `addr2line -e FILE [-a] [-f] [-i] [-C] [-p]`
// prints for each address (GNU binutils 2.40 output, byte for byte, including
// "??", "??:0", "file:?", " (discriminator N)" and " (inlined by) "), using
// strobe's DWARF index. To be a drop-in replacement it also reproduces how
// binutils names the innermost frame: a DWARF function without a linkage name
// (a static C++ function, also when inlined) is named by the ELF symbol that
// covers the address, and a function whose start matches that symbol keeps
// the symbol's name afterwards (so answers can depend on earlier addresses,
// as in addr2line: lookups may run in any order, naming runs in
// the input's). A stripped file's separate debug file is found as
// binutils finds it (build-id under /usr/lib/debug, .gnu_debuglink). --json gives strobe's own
// names instead (see frame_names.hpp): one JSON object per address, one line each.
//
// Owns: the ELF file, its symbols and DWARF index, and memoized names.
// Thread safety: none; one thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/result.hpp"
#include "base/text_buffer.hpp"
#include "symbolize/dwarf_index.hpp"
#include "symbolize/elf_file.hpp"
#include "symbolize/frame_names.hpp"
#include "symbolize/symbol_table.hpp"

namespace strobe::symbolize {

struct Addr2LineOptions {
  bool addresses = false;  // -a
  bool functions = false;  // -f
  bool inlines = false;    // -i
  bool demangle = false;   // -C
  bool pretty = false;     // -p
};

class Addr2Line {
 public:
  static Result<std::unique_ptr<Addr2Line>> open(const std::string& path);

  // Appends the answers for `addrs` (addresses as stated in the file) to
  // `out` in their order, and calls `flush(out)` whenever out passes
  // `chunk` bytes and at the end (flush writes and empties it; false stops
  // the answers and makes answer() false). Each answer is addr2line's for
  // `opt`, or with `as_json` one line {"address":"0x…","frames":[{"function",
  // "system_name","file","line","inlined"}…]}, frames innermost first. The
  // debug information the answers need is indexed first (DwarfIndex::prepare).
  using Flush = std::function<bool(TextBuffer&)>;
  bool answer(const std::vector<uint64_t>& addrs, const Addr2LineOptions& opt, bool as_json,
              TextBuffer& out, size_t chunk, const Flush& flush);

 private:
  explicit Addr2Line(ElfFile elf);
  struct BfdName {
    std::string_view name;
    std::string_view demangled;  // of name (-C), once shown() asked for it
    bool is_linkage = false;
    bool named = false;  // name and is_linkage are set
  };
  BfdName& bfdName(uint32_t function) {
    if (function < bfd_names_.size() && bfd_names_[function].named) return bfd_names_[function];
    return nameBfd(function);
  }
  BfdName& nameBfd(uint32_t function);
  // The name as printed: demangled with -C.
  std::string_view shown(BfdName& b, bool demangle);
  std::string_view demangled(std::string_view name);
  bool inAllocSection(uint64_t addr) const;
  // The frames of addrs[from, to) into looked_ and window_frames_, looked
  // up in address order: neighbouring lookups read neighbouring rows and
  // scopes, where input order jumps across the whole index.
  void lookUpWindow(const std::vector<uint64_t>& addrs, size_t from, size_t to);
  // Appends addr2line's answer for `addr`, whose frames are `frames`
  // (DwarfIndex::frames; empty when unknown or not in a section).
  void text(uint64_t addr, bool in_section, std::span<const Frame> frames,
            const Addr2LineOptions& opt, TextBuffer& out);
  void json(uint64_t addr, TextBuffer& out);

  ElfFile elf_;
  std::unique_ptr<ElfFile> debug_;  // separate debug file (debug_file.hpp), when used
  SymbolTable symbols_;
  std::unique_ptr<DwarfIndex> dwarf_index_;
  DwarfIndex& dwarf_;
  std::vector<std::pair<uint64_t, uint64_t>> alloc_;        // [start, end) of SHF_ALLOC sections
  mutable std::pair<uint64_t, uint64_t> last_alloc_{0, 0};  // the one inAllocSection found last
  int address_digits_ = 16;
  std::vector<BfdName> bfd_names_;  // by function id
  // Names are interned (DwarfIndex, SymbolTable): looked up by their
  // address, demangled once per text.
  std::unordered_map<const char*, std::string_view> demangled_;
  std::unordered_map<std::string_view, std::string> demangled_text_;
  std::vector<Frame> frames_;
  std::vector<NamedFrame> named_;
  struct Looked {
    uint32_t begin = 0;  // in window_frames_
    uint32_t count = 0;
    bool in_section = false;
  };
  std::vector<Looked> looked_;  // by address of the window
  std::vector<Frame> window_frames_;
  std::vector<uint32_t> order_, order_scratch_;
};

}  // namespace strobe::symbolize
