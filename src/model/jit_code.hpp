// Code without a file: what a recording knows about functions that a JIT
// runtime generated into anonymous memory (JitCode), and about anonymous
// executable memory that nothing named (AnonRegion). Part of the Profile
// (see profile.hpp), stored with it, so a recording names its JIT frames
// after the runtime's jitdump or perf map files are gone.
//
// A JitCode is valid in one process, for one address range, from the time
// it was loaded: the same range is reused for other functions over time, so
// a frame is named by (pid, address, sample time), never by address alone
// (symbolize/jit_table.hpp decides which entry holds at a time). Frames of
// JIT functions live in one pseudo-module, "[JIT]": the concatenation of
// every JitCode's bytes in the order the recording learnt of them (each one
// starting 16-aligned at its module_offset), as if each function were a
// file of its own (perf inject --jit writes one per function). So a JIT
// frame is an ordinary Location: module "[JIT]", offset = module_offset +
// (address - start).
//
// Times are nanoseconds since Meta::start_monotonic_ns (CLOCK_MONOTONIC,
// like sample times), negative for code loaded before the recording began.
// Thread safety: plain values.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace strobe::model {

using JitCodeId = uint32_t;

// The module path of JIT frames (see above).
inline constexpr const char* kJitModule = "[JIT]";
// JitCode::unload_ns of code that was never unloaded.
inline constexpr int64_t kNeverUnloaded = std::numeric_limits<int64_t>::max();

// Where a JitCode was learnt from.
enum class JitSource : uint8_t {
  kJitdump = 0,  // a jit-PID.dump file (node --perf-prof, the JVM's agent, libstrobe, ...)
  kPerfMap = 1,  // a /tmp/perf-PID.map file (no times: loaded when strobe read the line)
  kApi = 2,      // libstrobe's strobe_jit_register, in-process
};
inline constexpr uint8_t kMaxJitSource = 2;

// One row of a JIT function's line table: code from `offset` up to the next
// row's offset comes from file:line.
struct JitLine {
  uint64_t offset = 0;  // from JitCode::start
  uint32_t file = 0;    // StringId of the source file
  uint32_t line = 0;    // 1-based; 0 when unknown
};

struct JitCode {
  int32_t pid = 0;
  uint64_t start = 0;  // process address (AVMA) of the first byte
  uint64_t size = 0;
  int64_t load_ns = 0;                 // valid from (see above)
  int64_t unload_ns = kNeverUnloaded;  // unloaded or moved away at (an explicit end)
  uint32_t name = 0;                   // StringId: the name the runtime gave it
  JitSource source = JitSource::kJitdump;
  uint64_t module_offset = 0;  // set by Profile::addJitCode
  std::vector<JitLine> lines;  // sorted by offset; empty when none
  std::string bytes;           // the code as loaded; "" when unknown
};

// Anonymous executable memory of one process, as mapped while recording
// (adjacent and overlapping mappings merged). Frames in it that no JitCode
// names are counted once per region: "[anon]+0xSTART".
struct AnonRegion {
  int32_t pid = 0;
  uint64_t start = 0;  // AVMA, inclusive
  uint64_t end = 0;    // exclusive
};

}  // namespace strobe::model
