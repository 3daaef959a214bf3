// Kallsyms: names kernel addresses from /proc/kallsyms (the kernel's symbol
// table: "ADDRESS TYPE NAME [MODULE]" per line). Only text symbols (t/T/w/W)
// name code. When the kernel hides addresses (kernel.kptr_restrict, or an
// unprivileged reader) every address reads as 0: hidden() is then true and
// lookups fail, and callers name such frames "[kernel]".
//
// The kernel lists its own symbols first, sorted by address, one
// "ADDRESS TYPE NAME" line each; loadable modules', BPF programs' and
// trampolines' follow as "ADDRESS TYPE NAME\t[MODULE]", not sorted. Only
// those are parsed into a list: the kernel's own (120,000 lines and more) are
// found by binary search over the lines of the text itself, as a report
// names only a few thousand addresses. A text whose kernel part does not look
// sorted is parsed whole instead (the same answers, slower).
//
// Owns: the text (a copy of a kallsyms file is mapped, /proc/kallsyms is
// read: a few MB for a distribution kernel), the sorted list of the modules'
// symbols and their composed names.
// Thread safety: immutable after parse()/load(); lookups are const and may
// run concurrently. Not async-signal-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/mmap.hpp"
#include "base/result.hpp"

namespace strobe::symbolize {

// The module of kernel frames in a Profile (offset == address).
inline constexpr std::string_view kKernelModule = "[kernel.kallsyms]";
// The name given to kernel frames when symbols are unavailable.
inline constexpr std::string_view kHiddenKernelName = "[kernel]";

class Kallsyms {
 public:
  // Indexes the text of /proc/kallsyms; malformed lines are skipped.
  static Kallsyms parse(std::string_view text);
  // The same answers from a parse of every line into the list, whatever the
  // order of the text: what parse() falls back to (tests compare the two).
  static Kallsyms parseWhole(std::string_view text);
  // Reads /proc/kallsyms (or `path`). kNotFound when it cannot be read.
  static Result<Kallsyms> load(const std::string& path = "/proc/kallsyms");

  // The text symbol containing `address` (the nearest at or below it, when
  // the address is below the next symbol), or nullopt.
  [[nodiscard]] std::optional<std::string_view> lookup(uint64_t address) const;
  // Where lookup(address)'s symbol starts and where the next symbol does
  // (its end, exclusive); nullopt when lookup fails or it is the last one.
  struct Range {
    uint64_t start = 0;
    uint64_t end = 0;
  };
  [[nodiscard]] std::optional<Range> range(uint64_t address) const;
  // True when the file listed symbols but every address was 0.
  [[nodiscard]] bool hidden() const { return hidden_; }
  // True when no text symbol has an address: lookups all fail.
  [[nodiscard]] bool empty() const { return !kernel_code_ && symbols_.empty(); }
  // True when the kernel's own lines are looked up in the text (not parsed
  // into the list): its part of the text looked sorted.
  [[nodiscard]] bool indexed() const { return indexed_; }
  // Lets the pages of a mapped kallsyms file go from the process's memory;
  // they are read in again (the same bytes) when a lookup or a name needs
  // them. Nothing for a text read into memory.
  void releasePages() const;

 private:
  // One "ADDRESS TYPE NAME" line; name and name_len are offsets in the line.
  struct Line {
    uint64_t address = 0;
    char type = 0;
    size_t name = 0;
    size_t name_len = 0;
    size_t tab_at = std::string_view::npos;  // in the name: "name\t[module]"
  };
  static std::optional<Line> parseLine(const char* line, size_t len);
  // A text symbol with an address and a name: one that names code.
  static bool names(const Line& l);

  // Sorts into the list the lines in [from, to) of k's text (owned_ or
  // mapped_), a module's "name\t[module]" as "name [module]"; counts the
  // well-formed lines in `listed`. False when `modules_only` is set and a
  // line without a tab appears.
  static bool parseLines(Kallsyms& k, size_t from, size_t to, bool modules_only, size_t& listed);
  // Fills k from its text: the index when it fits, else the whole parse.
  static void build(Kallsyms& k, bool whole);
  // Finds the end of the kernel's own lines, checks them, parses the rest.
  static bool buildIndex(Kallsyms& k);
  // True when sampled lines of the kernel part are in address order and
  // without a tab: every line near its start and end, and some between.
  [[nodiscard]] bool kernelLinesLookSorted() const;

  [[nodiscard]] std::string_view text() const {
    return mapped_.valid()
               ? std::string_view(static_cast<const char*>(mapped_.data()), mapped_.size())
               : std::string_view(owned_);
  }
  // Line navigation in text(): `at` is where a line starts.
  [[nodiscard]] size_t lineEnd(size_t at) const;        // its '\n', or the text's end
  [[nodiscard]] size_t nextLine(size_t at) const;       // the next line's start
  [[nodiscard]] size_t previousLine(size_t at) const;   // at > 0: the previous line's start
  [[nodiscard]] size_t lineStartFrom(size_t at) const;  // the first line start at or after
  [[nodiscard]] std::optional<Line> lineAt(size_t at) const;
  // The start of the last well-formed kernel line whose address is at or
  // below `address` (npos when none).
  [[nodiscard]] size_t kernelFloorLine(uint64_t address) const;
  // The kernel's text symbol at or below `address` (its line's start) and the
  // address of its next one above `address`, each npos / nullopt when none.
  struct KernelHit {
    size_t line = std::string_view::npos;
    uint64_t address = 0;
    std::optional<uint64_t> next;
  };
  [[nodiscard]] KernelHit kernelAround(uint64_t address, bool want_next) const;

  // A symbol of the list: its name is text()[name, name + size) (the file's
  // own text, no string each), or composed_[name, name + size) when size has
  // kComposed set: a module's "name [module]".
  static constexpr uint32_t kComposed = 1u << 31;
  struct Symbol {
    uint64_t address = 0;
    uint32_t name = 0;
    uint32_t size = 0;
  };
  std::vector<Symbol> symbols_;  // sorted by address (stable: text order)
  std::string owned_;
  Mmap mapped_;  // a read-only mapping of a kallsyms file
  std::string composed_;
  // The kernel's own lines: text()[0, kernel_end_), sorted by address, not in
  // symbols_ (kernel_end_ is 0 when the text was parsed whole).
  size_t kernel_end_ = 0;
  bool kernel_code_ = false;  // one of them names code
  size_t last_code_ = 0;      // the line of the last one that does
  uint64_t last_code_address_ = 0;
  bool indexed_ = false;
  bool hidden_ = false;
};

// The one-line hint for hidden kernel addresses, given kptr_restrict
// (-1 when unreadable).
std::string kptrRestrictHint(int kptr_restrict);

}  // namespace strobe::symbolize
