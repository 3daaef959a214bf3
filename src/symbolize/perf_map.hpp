// PerfMap: JIT symbols from a /tmp/perf-PID.map file, the convention that
// JITs (V8/node --perf-basic-prof, the JVM with perf-map-agent, LuaJIT, ...)
// use to name code they generate in anonymous executable memory.
//
// Format, one symbol per line: "START SIZE NAME", START and SIZE in hex
// (with or without 0x), NAME the rest of the line (may contain spaces).
// Malformed lines are skipped. Addresses are process addresses (AVMA), so a
// lookup uses Location::address, not a file offset.
// Owns: its copy of the symbols. Thread safety: immutable after load().
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace strobe::symbolize {

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
