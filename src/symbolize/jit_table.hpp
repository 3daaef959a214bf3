// JitTable: the one lookup of JIT code by (pid, address, time), over the
// JitCode entries of a Profile (model/jit_code.hpp), whatever they came
// from (jitdump, perf map, strobe_jit_register).
//
// Which entry holds at a time: of the entries of the process that cover the
// address, ordered by load time (ties: the one learnt last), the last one
// loaded at or before the time, unless it was unloaded (or moved away)
// before that time, in which case none. A sample older than every covering
// entry takes the oldest one: perf-map lines are read some time after the
// runtime wrote them, so code runs before strobe knows its line. A later
// load over part of an earlier range ends the earlier entry for those
// addresses only.
//
// Owns: a copy of the entries' ranges and times, rebuilt by update() when
// the profile has new entries. Thread safety: none; immutable between
// update() calls.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "model/profile.hpp"

namespace strobe::symbolize {

class JitTable {
 public:
  // Takes in the profile's entries; true when there were new ones (earlier
  // candidates() answers may have changed).
  bool update(const model::Profile& p);
  [[nodiscard]] bool empty() const { return by_pid_.empty(); }

  // The entries of `pid` that cover `address`, ordered as described above
  // (appended to `out`, which is cleared first).
  void candidates(int32_t pid, uint64_t address, std::vector<model::JitCodeId>& out) const;
  // Of candidates() of one address, the one that held at `time_ns` (ns since
  // the recording's start), or kNone.
  [[nodiscard]] model::JitCodeId choose(const std::vector<model::JitCodeId>& candidates,
                                        int64_t time_ns) const;
  [[nodiscard]] model::JitCodeId lookup(int32_t pid, uint64_t address, int64_t time_ns) const;

 private:
  struct Range {
    uint64_t start;
    uint64_t end;
    model::JitCodeId id;
  };
  struct Times {
    int64_t load;
    int64_t unload;
  };
  struct PidRanges {
    std::vector<Range> ranges;      // sorted by start
    std::vector<uint64_t> max_end;  // max_end[i]: the largest end of ranges[0..i]
  };
  std::unordered_map<int32_t, PidRanges> by_pid_;
  std::vector<Times> times_;  // by JitCodeId
  size_t seen_ = 0;           // entries taken in
};

}  // namespace strobe::symbolize
