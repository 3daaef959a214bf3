// The perf map convention: JITs (V8/node --perf-basic-prof, the JVM with
// perf-map-agent, LuaJIT, ...) name the code they generate in anonymous
// executable memory by appending lines to /tmp/perf-PID.map while they run.
//
// Format, one symbol per line: "START SIZE NAME", START and SIZE in hex
// (with or without 0x), NAME the rest of the line (may contain spaces).
// Malformed lines are skipped. Addresses are process addresses (AVMA). The
// file carries no times: a line written later for an overlapping range is
// newer code. strobe reads the file line by line as it grows while
// recording (parsePerfMapLine, jit_files.hpp), to learn when.
// PerfMap: a whole file at once, looked up by address alone.
// Owns: its copy of the symbols. Thread safety: immutable after load().
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace strobe::symbolize {

struct PerfMapLine {
  uint64_t start = 0;
  uint64_t size = 0;  // > 0
  std::string_view name;
};

// One line (without its '\n'; a trailing '\r' is ignored); nullopt for a
// malformed line, an empty size or name, or a range past the address space.
std::optional<PerfMapLine> parsePerfMapLine(std::string_view line);

class PerfMap {
 public:
  static Result<PerfMap> load(const std::string& path);
  static PerfMap parse(std::string_view text);

  // The symbol covering `address`; of overlapping entries (a JIT reusing
  // memory), the one written last.
  [[nodiscard]] std::optional<std::string_view> lookup(uint64_t address) const;
  [[nodiscard]] size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    uint64_t start = 0;
    uint64_t end = 0;  // exclusive
    uint32_t order = 0;
    std::string name;
  };
  std::vector<Entry> entries_;  // sorted by start
};

}  // namespace strobe::symbolize
