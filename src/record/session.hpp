// Recording sessions. recordCommand() launches a command, samples every
// thread it has or creates (one event per CPU with `inherit`, enabled on
// exec), drains the rings into the model until the command exits, and fills
// the Profile's samples, stacks, threads and meta. Symbolization and storage
// are the caller's.
//
// Signals: while recording, SIGINT/SIGTERM/SIGHUP/SIGQUIT sent to strobe with
// kill(2) are forwarded to the command; the terminal already delivers
// Ctrl-C to both. The previous handlers are restored on return.
// Thread safety: one session at a time per process (signal handlers).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "model/profile.hpp"
#include "record/converter.hpp"

namespace strobe::record {

struct RecordOptions {
  std::vector<std::string> command;  // argv; command[0] is looked up in PATH
  uint32_t frequency = 99;           // Hz of CPU time, per thread
  bool callchain = true;             // -g fp (true) or -g none
  // -g dwarf / auto: also sample the user registers and this many bytes of
  // user stack (a multiple of 8, at most 65528) and unwind them with CFI as
  // the rings drain; 0 = off. The kernel's fp chain (callchain) is spliced in
  // where the CFI walk ends early.
  uint32_t stack_copy_bytes = 0;
  bool unwind_auto = false;  // -g auto: fp steps in modules that keep frame pointers
  size_t mmap_pages = 128;   // data pages per CPU ring, a power of two
};

struct RecordOutcome {
  int exit_status = 0;  // as a shell reports it: 128+N for signal N
  ConverterStats stats;
  uint64_t malformed_records = 0;
};

// Errors: kNotFound when the command does not exist (exit 127), kPermission
// when perf_event_open is refused, kUsage for bad options.
Result<RecordOutcome> recordCommand(const RecordOptions& opt, model::Profile& profile);

}  // namespace strobe::record
