// Kallsyms: names kernel addresses from /proc/kallsyms (the kernel's symbol
// table: "ADDRESS TYPE NAME [MODULE]" per line). Only text symbols (t/T/w/W)
// name code. When the kernel hides addresses (kernel.kptr_restrict, or an
// unprivileged reader) every address reads as 0: hidden() is then true and
// lookups fail, and callers name such frames "[kernel]".
//
// Owns: the sorted symbol list and the text of the names (a few MB for a
// distribution kernel; a copy of a kallsyms file is mapped, not read).
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
  // Parses the text of /proc/kallsyms; malformed lines are skipped.
  static Kallsyms parse(std::string_view text);
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
  [[nodiscard]] size_t size() const { return symbols_.size(); }

 private:
  // Parses text_size bytes of k's text (owned_ or mapped_).
  static void parseText(Kallsyms& k, const char* text, size_t text_size);
  [[nodiscard]] std::string_view text() const {
    return mapped_.valid()
               ? std::string_view(static_cast<const char*>(mapped_.data()), mapped_.size())
               : std::string_view(owned_);
  }

  // A symbol's name is text()[name, name + size): the file's own text
  // (mapped, or read when it cannot be: /proc/kallsyms), as a distribution
  // kernel has 100,000 and more symbols: no string each. A loadable
  // module's, "name [module]", is composed_[name, name + size) when size
  // has kComposed set.
  static constexpr uint32_t kComposed = 1u << 31;
  struct Symbol {
    uint64_t address = 0;
    uint32_t name = 0;
    uint32_t size = 0;
  };
  std::vector<Symbol> symbols_;  // sorted by address
  std::string owned_;
  Mmap mapped_;  // a read-only mapping of a kallsyms file
  std::string composed_;
  bool hidden_ = false;
};

// The one-line hint for hidden kernel addresses, given kptr_restrict
// (-1 when unreadable).
std::string kptrRestrictHint(int kptr_restrict);

}  // namespace strobe::symbolize
