// JitdumpWriter: the jit-PID.dump file in which libstrobe describes the code
// registered through strobe_jit_register, for profilers outside the process
// (strobe record and top, perf record -k 1 + perf inject --jit). Written
// only when STROBE_JITDUMP names a directory (strobe record/top set it for
// the command they launch; see docs/LIBSTROBE.md).
//
// The file follows the jitdump specification (symbolize/jitdump.hpp) with
// standard records only, so perf reads it without complaint: a CODE_LOAD per
// registration (name, address, the code bytes read from the process's own
// memory), and for strobe_jit_register_lines a CODE_DEBUG_INFO followed by
// the same function loaded again (debug information must precede its load).
// Unregistering writes nothing (the format has no record for it): a later
// load over the same memory is what tells readers the code changed. As perf
// requires, the file is also mapped executable once (its marker mapping).
// Each record reaches the file in one write(2), so a reader never sees half
// of one except at the end. A fork()ed child opens a file of its own at its
// first registration.
// Owns: the descriptor and the marker mapping (kept for the process's life).
// Thread safety: none; the registry calls it under its mutex.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "symbolize/jitdump.hpp"

namespace strobe::inproc {

class JitdumpWriter {
 public:
  // A CODE_LOAD of [start, start + size) named `name`, at `time_ns`
  // (CLOCK_MONOTONIC), preceded by a CODE_DEBUG_INFO when `lines` is not empty.
  void load(uint64_t time_ns, uint64_t start, uint64_t size, std::string_view name,
            std::span<const symbolize::JitdumpLine> lines);
  // The file this process writes ("" when it writes none).
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  bool ready();  // opens the file on first use (and again in a forked child)

  int fd_ = -1;
  int32_t pid_ = 0;  // of the process the open file belongs to
  bool disabled_ = false;
  uint64_t index_ = 0;  // code_index of the next load
  std::string path_;
  std::string buf_;
};

}  // namespace strobe::inproc
