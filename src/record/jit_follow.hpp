// JitFollow: a recording session's part in naming JIT code. While the
// session drains, it follows (symbolize/jit_files.hpp) the jitdump files
// whose marker mappings the converter sees and the perf maps of processes
// with anonymous executable memory, every 100 ms and once more at the end,
// so the recording holds the names, lines and code the runtimes gave, even
// for code they move or free before the end, and needs none of those files
// afterwards.
//
// For a launched command it also asks libstrobe's JIT registration API in
// the command (strobe_jit_register, docs/LIBSTROBE.md) to write a jitdump:
// STROBE_JITDUMP names a private directory (unless the user set the
// variable), removed with what is in it when the session ends, after it
// was read.
// Owns: the private directory and the followed files' descriptors.
// Thread safety: none; the session's thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/profile.hpp"
#include "record/converter.hpp"
#include "symbolize/jit_files.hpp"

namespace strobe::record {

// The environment variable libstrobe reads (a directory for jit-PID.dump).
inline constexpr const char* kJitdumpEnv = "STROBE_JITDUMP";

class JitFollow {
 public:
  JitFollow() = default;
  JitFollow(const JitFollow&) = delete;
  JitFollow& operator=(const JitFollow&) = delete;
  ~JitFollow();

  // Before forking the command: makes the private directory and returns
  // "STROBE_JITDUMP=DIR" for the command's environment ("" when the user
  // set the variable or no directory could be made).
  std::string launchEnvironment();
  // Each pass of the drain loop (reads at most every 100 ms).
  void poll(model::Profile& p, Converter& c, uint64_t now_ns);
  // After the last records were applied; problems go to `warnings`.
  void finish(model::Profile& p, Converter& c, uint64_t now_ns, std::vector<std::string>& warnings);

 private:
  void follow(Converter& c);

  symbolize::JitFiles files_;
  std::string dir_;  // the private directory, "" when none
  uint64_t next_poll_ns_ = 0;
};

}  // namespace strobe::record
